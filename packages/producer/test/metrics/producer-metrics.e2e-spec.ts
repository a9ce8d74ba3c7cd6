import { REPLY_HEADERS, ReplyInboxes } from '@mmmq/core';
import { InMemoryBroker, MmmqTestingModule } from '@mmmq/core/testing';
import { waitFor } from '@mmmq/test-support';
import { Test } from '@nestjs/testing';
import { Registry } from 'prom-client';
import { MmmqProducerModule, Producer } from '../../src';
import { MmmqProducerMetricsModule } from '../../src/metrics';
import { RecordingLogger } from '../support/producer-app';
import { nack, ScriptedBroker, startScriptedBroker } from '../support/scripted-broker';

/** Short waits keep the test quick; no assertion depends on how long anything took. */
const FAST_RETRIES = { retryDelayMs: 1, maxRetryDelayMs: 20 };

/** The value of a sample of `name` in the registry, by its labels; undefined when there is none. */
async function sample(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  for (const metric of await registry.getMetricsAsJSON()) {
    for (const value of metric.values) {
      // A histogram's samples carry their own name (`…_count`, `…_sum`, `…_bucket`).
      const sampleName = (value as { metricName?: string }).metricName ?? metric.name;
      if (sampleName === name && Object.entries(labels).every(([key, wanted]) => value.labels[key] === wanted)) return value.value;
    }
  }
  return undefined;
}

describe('MmmqProducerMetricsModule', () => {
  let broker: ScriptedBroker | undefined;

  afterEach(async () => {
    await broker?.close();
    broker = undefined;
  });

  it('measures each publication once with its outcome, and counts the retries, in the application registry', async () => {
    broker = await startScriptedBroker([nack(), nack(), 'ack', 'ack', nack('disk busy')]);
    const registry = new Registry();
    const module = await Test.createTestingModule({
      imports: [
        MmmqProducerMetricsModule.forRoot({ registry }),
        MmmqProducerModule.forRoot({ broker: broker.url, ...FAST_RETRIES, maxRetryCount: 2 }),
      ],
    })
      .setLogger(new RecordingLogger())
      .compile();
    await module.init();
    const producer = module.get(Producer);
    await producer.produce('order.created', { n: 1 }); // NACK, NACK, ACK: 2 retries
    await producer.produce('order.paid', { n: 2 }); // ACK
    await expect(producer.produce('order.paid', { n: 3 })).rejects.toThrow(/disk busy/); // NACK thrice: 2 retries, failed
    await module.close();

    const count = 'mmmq_producer_produce_duration_seconds_count';
    expect(await sample(registry, count, { topic: 'order.created', outcome: 'acked' })).toBe(1);
    expect(await sample(registry, count, { topic: 'order.paid', outcome: 'acked' })).toBe(1);
    expect(await sample(registry, count, { topic: 'order.paid', outcome: 'failed' })).toBe(1);
    expect(await sample(registry, 'mmmq_producer_retries_total', { topic: 'order.created' })).toBe(2);
    expect(await sample(registry, 'mmmq_producer_retries_total', { topic: 'order.paid' })).toBe(2);
  });

  it('measures each request with its outcome, and counts late replies', async () => {
    const registry = new Registry();
    const module = await Test.createTestingModule({
      imports: [MmmqTestingModule.forRoot(), MmmqProducerMetricsModule.forRoot({ registry }), MmmqProducerModule.forRoot()],
    })
      .setLogger(new RecordingLogger())
      .compile();
    await module.init();
    const producer = module.get(Producer);
    const memory = module.get(InMemoryBroker);
    // Answers the n-th request of `topic` by hand, as a listener's consumer would.
    const answer = async (topic: string, n: number, reply: { content?: unknown; error?: { name: string; message: string } }) => {
      await waitFor(() => memory.published(topic).length > n, { message: `request ${n} of ${topic} published` });
      const { headers = {} } = memory.published(topic)[n];
      ReplyInboxes.deliver({
        inbox: String(headers[REPLY_HEADERS.replyTo]),
        correlationId: String(headers[REPLY_HEADERS.correlationId]),
        ...reply,
      });
    };
    const answered = producer.request('quote.price', { sku: 'a' });
    await answer('quote.price', 0, { content: 1 });
    await expect(answered).resolves.toBe(1);
    const failed = producer.request('quote.price', { sku: 'b' });
    await answer('quote.price', 1, { error: { name: 'Error', message: 'no price' } });
    await expect(failed).rejects.toThrow(/no price/);
    await expect(producer.request('quote.slow', {}, { timeoutMs: 50 })).rejects.toThrow(/within 50 ms/);
    await answer('quote.slow', 0, { content: 'late' });
    await module.close();

    const count = 'mmmq_producer_request_duration_seconds_count';
    expect(await sample(registry, count, { topic: 'quote.price', outcome: 'answered' })).toBe(1);
    expect(await sample(registry, count, { topic: 'quote.price', outcome: 'error' })).toBe(1);
    expect(await sample(registry, count, { topic: 'quote.slow', outcome: 'timeout' })).toBe(1);
    expect(await sample(registry, 'mmmq_producer_late_replies_total')).toBe(1);
  });

  it('refuses a registry that is not a prom-client Registry, and unknown options, naming them', () => {
    expect(() => MmmqProducerMetricsModule.forRoot({ registry: 'default' as never })).toThrow(/^registry must be a prom-client Registry/);
    expect(() => MmmqProducerMetricsModule.forRoot({ prefix: 'x' } as never)).toThrow(
      /^Unknown option prefix of MmmqProducerMetricsModule/,
    );
  });
});
