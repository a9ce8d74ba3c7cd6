import { MmmqBrokerModule } from '@mmmq/broker';
import { MmmqProducerModule, Producer } from '@mmmq/producer';
import { Injectable, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { makeTempDir, removeTempDir, waitFor } from '@mmmq/test-support';
import { MessageContext, MmmqConsumerModule, MMMQListener } from '../../src';

/** Due after the application is closed and started again. */
const DELAY_MS = 1500;

@Injectable()
class Reminders {
  readonly received: Array<{ text: string; at: number; deliveryCount: number }> = [];

  @MMMQListener('reminder.due', { consumerId: 'reminders' })
  onReminder(reminder: { text: string }, context: MessageContext): void {
    this.received.push({ text: reminder.text, at: Date.now(), deliveryCount: context.deliveryCount });
  }
}

/** Broker, listener and producer in one application: a scheduled message reaches the in-process listener at its time. */
describe('a scheduled message in one application, across a restart of it', () => {
  let rootDir: string;
  let app: INestApplication | undefined;

  beforeEach(async () => {
    rootDir = await makeTempDir();
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await removeTempDir(rootDir);
  });

  async function start(): Promise<INestApplication> {
    @Module({
      imports: [MmmqBrokerModule.forRoot({ persistence: { rootDir } }), MmmqConsumerModule.forRoot(), MmmqProducerModule.forRoot()],
      providers: [Reminders],
    })
    class AppModule {}
    const created = await NestFactory.create(AppModule, { abortOnError: false, logger: ['error'] });
    await created.listen(0, '127.0.0.1');
    return created;
  }

  it('is delivered once, not before its time, by the application started again', async () => {
    app = await start();
    const producer = app.get(Producer);
    const publishedAt = Date.now();
    await producer.produce('reminder.due', { text: 'later' }, { delayMs: DELAY_MS });
    await producer.produce('reminder.due', { text: 'at a time' }, { deliverAt: new Date(publishedAt + DELAY_MS / 2) });
    await producer.produce('reminder.due', { text: 'now' });
    await waitFor(() => app!.get(Reminders).received.length === 1, { message: 'the message not scheduled' });
    expect(app.get(Reminders).received.map(({ text }) => text)).toEqual(['now']);
    await waitFor(() => app!.get(Reminders).received.length === 2, { message: 'the message scheduled with deliverAt' });
    const atTime = app.get(Reminders).received[1];
    expect(atTime.text).toBe('at a time');
    expect(atTime.at).toBeGreaterThanOrEqual(publishedAt + DELAY_MS / 2);
    await app.close();

    app = await start();
    await waitFor(() => app!.get(Reminders).received.length === 1, { message: 'the delayed message after the restart' });
    const [later] = app.get(Reminders).received;
    expect(later.text).toBe('later');
    expect(later.at).toBeGreaterThanOrEqual(publishedAt + DELAY_MS);
    expect(later.deliveryCount).toBe(1);
  });
});
