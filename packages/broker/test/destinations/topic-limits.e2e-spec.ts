import { StreamRequestKind } from '@mmmq/core';
import { MmmqProducerModule, Producer } from '@mmmq/producer';
import { LoggerService } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { waitFor } from '@mmmq/test-support';
import { MmmqBrokerOptions, TopicRegistry } from '../../src';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { PullClient } from '../delivery/pull.fixture';
import { range } from '../delivery/delivery.fixture';
import { StreamClient } from '../stream/stream-client';

const LIMIT = 20;
/** About 160 bytes stored per message: a 1 KiB segment holds a handful. */
const padding = 'x'.repeat(100);

const OPTIONS: MmmqBrokerOptions = {
  stream: { port: 0 },
  persistence: { segment: { maxBytes: 1024 }, flush: { intervalMs: 20 }, retention: { checkIntervalMs: 50 } },
  topics: {
    overrides: [
      { pattern: 'capped.*', limits: { maxMessages: LIMIT } },
      { pattern: 'capped.bytes', limits: { maxMessages: null, maxBytes: 2000 } },
      // Consumed segments go (retention keeps what a subscription still needs), which makes room again.
      { pattern: 'drained', limits: { maxMessages: LIMIT }, retention: { bytes: 1024 } },
      { pattern: 'dropping', limits: { maxMessages: LIMIT, overflow: 'dropOldest' } },
    ],
  },
};

/** Keeps the producer's retry warnings. */
class WarningLog implements LoggerService {
  readonly warnings: string[] = [];
  log(): void {}
  error(): void {}
  warn(message: unknown): void {
    this.warnings.push(String(message));
  }
}

describe('topic limits', () => {
  let broker: BrokerApp;
  const info = (topic: string) => broker.app.get(TopicRegistry).get(topic)!;
  const fill = (topic: string, count = LIMIT) =>
    broker.publishAll(
      topic,
      range(count).map((n) => ({ n, padding })),
    );

  beforeEach(async () => {
    broker = await startBroker(OPTIONS);
  });
  afterEach(() => broker.close());

  it('refuses a publish over maxMessages with 429, Retry-After and a NACK naming the limit, storing nothing', async () => {
    await fill('capped.single');

    const response = await broker.request('POST', '/mmmq/messages', { topic: 'capped.single', content: { n: LIMIT } });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(response.body).toEqual({ acknowledgement: 'NACK', message: expect.stringMatching(/limits\.maxMessages is 20/) });
    expect(info('capped.single').tailOffset).toBe(LIMIT);
  });

  it('lets concurrent publishes fill the topic exactly to its limit, refusing the rest', async () => {
    const answers = await Promise.all(
      range(LIMIT + 10).map((n) => broker.request('POST', '/mmmq/messages', { topic: 'capped.race', content: n })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array<number>(LIMIT).fill(200), ...Array<number>(10).fill(429)]);
    expect(info('capped.race')).toMatchObject({ startOffset: 0, tailOffset: LIMIT });
  });

  it('refuses a batch that would pass maxBytes whole (429), and one that could never fit with 400', async () => {
    await fill('capped.bytes', 5);
    const before = info('capped.bytes');
    const batch = (count: number) => ({ messages: range(count).map((n) => ({ topic: 'capped.bytes', content: { n, padding } })) });

    const refused = await broker.request('POST', '/mmmq/messages/batch', batch(6));
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/limits\.maxBytes is 2000/);
    const impossible = await broker.request('POST', '/mmmq/messages/batch', batch(20));
    expect(impossible.status).toBe(400);
    expect(impossible.body.message).toMatch(/more than its limits\.maxBytes of 2000/);
    expect(info('capped.bytes')).toMatchObject({ tailOffset: before.tailOffset, bytes: before.bytes });
  });

  it('answers 429 with retryAfterSeconds on the publish stream, and fences the connection as a 5xx does', async () => {
    await fill('capped.stream');
    const otherBefore = info('other')?.tailOffset ?? 0;
    const client = StreamClient.connect(broker);
    try {
      client.send(1, { topic: 'capped.stream', content: 1 });
      expect(await client.answer(1)).toEqual({
        status: 429,
        body: { acknowledgement: 'NACK', message: expect.stringMatching(/limits\.maxMessages/), retryAfterSeconds: 1 },
      });
      // Nothing sent after a refused publish may land before its retry: the connection refuses it unstored.
      client.send(2, { topic: 'other', content: 2 }, StreamRequestKind.PUBLISH);
      expect((await client.answer(2)).status).toBe(503);
      expect(info('other')?.tailOffset ?? 0).toBe(otherBefore);
    } finally {
      client.close();
    }
  });

  it('drops the oldest whole segments with dropOldest: every publish is stored, a subscription skips and counts what went', async () => {
    const consumer = new PullClient(broker, 'late-reader');
    await consumer.register({ pattern: 'dropping' });
    await fill('dropping', 60);

    const topic = info('dropping');
    expect(topic.tailOffset).toBe(60);
    expect(topic.messages).toBeLessThanOrEqual(LIMIT);
    const offsets: number[] = [];
    while (offsets.length < topic.messages) {
      const fetched = await consumer.fetch({ max: 100 });
      offsets.push(...fetched.map((message) => message.offset));
      await consumer.ack(fetched.map((message) => message.lease));
    }
    expect(offsets).toEqual(range(topic.messages, topic.startOffset));
    expect((await broker.subscription('late-reader', 'dropping')).stats.retentionSkipped).toBe(topic.startOffset);
  });

  describe.each([
    ['HTTP', (broker: BrokerApp) => broker.url],
    ['the publish stream', (broker: BrokerApp) => broker.streamUrl],
  ])('a Producer over %s', (_transport, brokerUrl) => {
    let producer: TestingModule | undefined;
    afterEach(() => producer?.close());

    it('retries the refused publish with the same id and lands it once consumption and retention made room', async () => {
      const consumer = new PullClient(broker, 'drainer');
      await consumer.register({ pattern: 'drained' });
      await fill('drained');
      const logger = new WarningLog();
      producer = await Test.createTestingModule({
        imports: [MmmqProducerModule.forRoot({ broker: brokerUrl(broker), retryDelayMs: 50, maxRetryDelayMs: 200, maxRetryCount: 500 })],
      })
        .setLogger(logger)
        .compile();
      await producer.init();

      const published = producer.get(Producer).produce('drained', { n: LIMIT }, { id: 'over-the-limit' });
      await waitFor(() => logger.warnings.some((warning) => /limits\.maxMessages/.test(warning)), {
        message: () => `a refused attempt logged as a retry; warnings: ${logger.warnings.join(' | ')}`,
      });
      expect(info('drained').tailOffset).toBe(LIMIT);

      const acked: number[] = [];
      while (acked.length < LIMIT) {
        const fetched = await consumer.fetch({ max: LIMIT });
        acked.push(...fetched.map((message) => message.offset));
        await consumer.ack(fetched.map((message) => message.lease));
      }
      expect(await published).toMatchObject({ id: 'over-the-limit', topic: 'drained', offset: LIMIT });
      const stored = await broker.stored('drained');
      expect(stored.filter((message) => message.id === 'over-the-limit')).toHaveLength(1);
    });
  });
});
