import { Injectable } from '@nestjs/common';
import { Registry } from 'prom-client';
import { MmmqConsumerModule, MMMQListener, NonRetriableError } from '../../src';
import { MmmqConsumerMetricsModule } from '../../src/metrics';
import { BrokerApp, startBroker } from '../support/broker-app';
import { ConsumerApp, freePort, startConsumer } from '../support/consumer-app';
import { registered } from '../support/registered-consumer';

const CONSUMER_ID = 'billing.refund-listener';

/** ACKs a refund, refuses (dead-letters) one marked `bad`. */
@Injectable()
@MMMQListener('refund.requested')
class RefundListener implements MMMQListener<{ refundId: string; bad?: boolean }> {
  handle(content: { refundId: string; bad?: boolean }): NonRetriableError | void {
    if (content.bad) return new NonRetriableError(`refund ${content.refundId} is unknown`);
  }
}

/** The value of a sample of `name` in the registry, by its labels; undefined when there is none. */
async function sample(registry: Registry, name: string, labels: Record<string, string | number> = {}): Promise<number | undefined> {
  const metrics = await registry.getMetricsAsJSON();
  for (const metric of metrics) {
    for (const value of metric.values) {
      // A histogram's samples carry their own name (`…_count`, `…_sum`, `…_bucket`).
      const sampleName = (value as { metricName?: string }).metricName ?? metric.name;
      if (sampleName === name && Object.entries(labels).every(([key, wanted]) => value.labels[key] === wanted)) return value.value;
    }
  }
  return undefined;
}

describe('MmmqConsumerMetricsModule', () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp | undefined;

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterEach(() => consumer?.close());
  afterAll(() => broker.close());

  it('counts handler runs by outcome in the application registry, and reads the queue depth', async () => {
    const registry = new Registry();
    const port = await freePort();
    const consumerModule = MmmqConsumerModule.forRoot({
      app: 'billing',
      broker: broker.url,
      advertisedUrl: `http://127.0.0.1:${port}`,
      registration: { backoffMs: 50 },
    });
    consumer = await startConsumer(
      { imports: [MmmqConsumerMetricsModule.forRoot({ registry }), consumerModule], providers: [RefundListener] },
      { port },
    );
    await registered(consumer.app);
    for (const refund of [{ refundId: 'a' }, { refundId: 'b', bad: true }, { refundId: 'c' }])
      await broker.publish('refund.requested', refund);
    await broker.caughtUp(CONSUMER_ID, 'refund.requested');

    const labels = { consumer_id: CONSUMER_ID, topic: 'refund.requested' };
    expect(await sample(registry, 'mmmq_consumer_handler_duration_seconds_count', { ...labels, outcome: 'ack' })).toBe(2);
    expect(await sample(registry, 'mmmq_consumer_handler_duration_seconds_count', { ...labels, outcome: 'reject' })).toBe(1);
    expect(await sample(registry, 'mmmq_consumer_handler_duration_seconds_count', { ...labels, outcome: 'nack' })).toBeUndefined();
    expect(await sample(registry, 'mmmq_consumer_queue_waiting_messages')).toBe(0);
    expect(await sample(registry, 'mmmq_consumer_handlers_running')).toBe(0);
  });

  it('refuses a registry that is not a prom-client Registry, and unknown options, naming them', () => {
    expect(() => MmmqConsumerMetricsModule.forRoot({ registry: {} as Registry })).toThrow(/^registry must be a prom-client Registry/);
    expect(() => MmmqConsumerMetricsModule.forRoot({ prefix: 'x' } as never)).toThrow(
      /^Unknown option prefix of MmmqConsumerMetricsModule/,
    );
  });
});
