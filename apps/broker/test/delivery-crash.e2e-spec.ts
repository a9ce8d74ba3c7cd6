import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestConsumer } from '@mmmq/test-support';
import { spawnBroker } from './broker-process.fixture';

const TOPICS = ['order.created', 'order.cancelled', 'payment.done', 'payment.refunded', 'audit.log'];
const PER_TOPIC = 1000;
/** The broker's bound on push deliveries a crash repeats per subscription (packages/broker subscription.ts). */
const SETTLED_NOT_DURABLE_MAX = 1000;
const BATCH = 100;
const CONSUMERS = ['billing', 'shipping', 'audit'];
/** Kill once every consumer has this many deliveries: the kill lands mid-stream for all of them. */
const KILL_AT = 1500;

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

/** Offsets each consumer received per topic, in arrival order. */
function offsetsByTopic(consumer: TestConsumer): Map<string, number[]> {
  const byTopic = new Map<string, number[]>();
  for (const { body } of consumer.received) {
    const offsets = byTopic.get(body.topic) ?? [];
    offsets.push(body.offset);
    byTopic.set(body.topic, offsets);
  }
  return byTopic;
}

describe('a broker killed with SIGKILL while three consumers receive 5,000 messages', () => {
  let rootDir: string;
  const consumers = CONSUMERS.map(() => new TestConsumer());

  beforeAll(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-delivery-crash-'));
    for (const consumer of consumers) await consumer.start();
  });
  afterAll(async () => {
    for (const consumer of consumers) await consumer.stop();
    await rm(rootDir, { recursive: true, force: true });
  });

  it('delivers every message to every consumer at least once, in order, duplicating only what was in flight', async () => {
    const dispatchers = CONSUMERS.map((consumerId, i) => ({ consumerId, host: consumers[i].url, pattern: '**' }));
    await writeFile(join(rootDir, 'dispatchers.json'), JSON.stringify(dispatchers));
    const env = { MMMQ_ROOT_DIR: rootDir };

    const first = await spawnBroker(env);
    for (let start = 0; start < PER_TOPIC; start += BATCH) {
      for (const topic of TOPICS) {
        const messages = Array.from({ length: BATCH }, (_, i) => ({ topic, content: { n: start + i } }));
        const response = await fetch(`${first.url}/mmmq/messages/batch`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ messages }),
        });
        expect(response.status).toBe(200);
      }
    }
    await Promise.all(consumers.map((consumer) => consumer.waitFor(() => consumer.received.length >= KILL_AT, 60_000)));
    first.child.kill('SIGKILL');
    await first.exited;
    const beforeKill = consumers.map((consumer) => consumer.received.length);
    expect(beforeKill.every((count) => count < TOPICS.length * PER_TOPIC)).toBe(true);

    const second = await spawnBroker(env);
    try {
      await Promise.all(
        consumers.map((consumer) =>
          consumer.waitFor(() => new Set(consumer.received.map((d) => `${d.body.topic}@${d.body.offset}`)).size === 5000, {
            // Long enough for a machine busy with other work: the pushes retry with backoff while the restart catches up.
            deadlineMs: 300_000,
            message: () =>
              `every one of the 5,000 messages at ${consumer.url}, ${new Set(consumer.received.map((d) => `${d.body.topic}@${d.body.offset}`)).size} distinct so far`,
          }),
        ),
      );
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }

    for (const consumer of consumers) {
      expect([...offsetsByTopic(consumer).keys()].sort()).toEqual([...TOPICS].sort());
      for (const offsets of offsetsByTopic(consumer).values()) {
        // After the restart delivery resumes at the durable cursor: a crash repeats only what was in flight or settled
        // without being durable yet — journaled 10 ms after the ACK, so a few pushes, never more than 1,000.
        const resumedAt = offsets.findIndex((offset, i) => i > 0 && offset <= offsets[i - 1]);
        if (resumedAt === -1) {
          expect(offsets).toEqual(range(0, PER_TOPIC));
          continue;
        }
        const repeated = resumedAt - offsets[resumedAt];
        expect(offsets.slice(0, resumedAt)).toEqual(range(0, resumedAt));
        expect(offsets.slice(resumedAt)).toEqual(range(offsets[resumedAt], PER_TOPIC));
        expect(repeated).toBeLessThanOrEqual(SETTLED_NOT_DURABLE_MAX);
      }
      // Everything the consumer may have seen before the kill comes back flagged: redelivered, counted again.
      for (const topic of TOPICS) {
        const deliveries = consumer.received.filter((d) => d.body.topic === topic);
        const resumedAt = deliveries.findIndex((d, i) => i > 0 && d.body.offset <= deliveries[i - 1].body.offset);
        if (resumedAt === -1) continue;
        const seenBefore = new Set(deliveries.slice(0, resumedAt).map((d) => d.body.offset));
        for (const again of deliveries.slice(resumedAt).filter((d) => seenBefore.has(d.body.offset))) {
          expect([again.body.offset, again.body.redelivered, again.body.deliveryCount]).toEqual([again.body.offset, true, 2]);
        }
      }
    }
    const contents = consumers[0].received.filter((d) => d.body.topic === 'audit.log').map((d) => (d.body.content as { n: number }).n);
    expect(new Set(contents).size).toBe(PER_TOPIC);
  }, 480_000);
});
