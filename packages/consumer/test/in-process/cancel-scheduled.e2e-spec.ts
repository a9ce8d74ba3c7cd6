import { MmmqBrokerModule } from '@mmmq/broker';
import { BrokerResponseError, MmmqProducerModule, Producer } from '@mmmq/producer';
import { Injectable, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { makeTempDir, removeTempDir, waitFor } from '@mmmq/test-support';
import { MmmqConsumerModule, MMMQListener } from '../../src';

/** Long enough to cancel before, short enough to wait for. */
const DELAY_MS = 1500;

@Injectable()
class Reminders {
  readonly received: string[] = [];

  @MMMQListener('reminder.due', { consumerId: 'reminders' })
  onReminder(reminder: { text: string }): void {
    this.received.push(reminder.text);
  }
}

/**
 * producer.cancelScheduled(): in the broker's own application (in process) and from another one over HTTP. Both
 * cancel one of two scheduled messages; the other is delivered at its time, the cancelled one never.
 */
describe('producer.cancelScheduled', () => {
  let rootDir: string;
  const apps: INestApplication[] = [];

  beforeEach(async () => {
    rootDir = await makeTempDir();
  });
  afterEach(async () => {
    // The remote producer first: it talks to the broker's application.
    for (const app of apps.splice(0).reverse()) await app.close();
    await removeTempDir(rootDir);
  });

  async function start(imports: unknown[], providers: unknown[] = []): Promise<INestApplication> {
    @Module({ imports: imports as never[], providers: providers as never[] })
    class AppModule {}
    const app = await NestFactory.create(AppModule, { abortOnError: false, logger: ['error'] });
    await app.listen(0, '127.0.0.1');
    apps.push(app);
    return app;
  }
  const brokerApp = () =>
    start(
      [MmmqBrokerModule.forRoot({ persistence: { rootDir } }), MmmqConsumerModule.forRoot(), MmmqProducerModule.forRoot()],
      [Reminders],
    );

  const cancelsOneOfTwo = async (broker: INestApplication, producer: Producer, byOffset: boolean) => {
    const kept = await producer.produce('reminder.due', { text: 'kept' }, { delayMs: DELAY_MS });
    const dropped = await producer.produce('reminder.due', { text: 'dropped' }, { delayMs: DELAY_MS });
    const cancelled = await producer.cancelScheduled('reminder.due', byOffset ? { id: dropped.id, offset: dropped.offset } : dropped.id);
    expect(cancelled).toMatchObject({ topic: 'reminder.due', id: dropped.id, offset: dropped.offset });
    expect(cancelled.dueAt).toBeGreaterThan(Date.now());
    await waitFor(() => broker.get(Reminders).received.length === 1, { message: 'the message not cancelled, at its time' });
    // Time enough for the cancelled one to have come, had it not been cancelled: the same due time.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(broker.get(Reminders).received).toEqual(['kept']);
    return kept;
  };

  it('cancels in process, by id and offset, and refuses a message that is due already or unknown', async () => {
    const broker = await brokerApp();
    const producer = broker.get(Producer);
    const kept = await cancelsOneOfTwo(broker, producer, true);
    await expect(producer.cancelScheduled('reminder.due', kept.id)).rejects.toThrow(/too late to cancel/);
    await expect(producer.cancelScheduled('reminder.due', 'no-such-id')).rejects.toThrow(/No message with id 'no-such-id'/);
  });

  it('cancels over HTTP from another application, by id alone, with the broker’s status on a refusal', async () => {
    const broker = await brokerApp();
    const remote = await start([MmmqProducerModule.forRoot({ broker: await broker.getUrl() })]);
    const producer = remote.get(Producer);
    const kept = await cancelsOneOfTwo(broker, producer, false);
    const late = await producer.cancelScheduled('reminder.due', kept.id).catch((error: unknown) => error);
    expect(late).toBeInstanceOf(BrokerResponseError);
    expect(late).toMatchObject({ status: 409 });
    const unknown = await producer.cancelScheduled('reminder.due', 'no-such-id').catch((error: unknown) => error);
    expect(unknown).toMatchObject({ status: 404 });
  });
});
