import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '@mmmq/test-support';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';

/** The storage layer's descriptor budget in these tests: far fewer than the files the topics below have. */
const BUDGET = 24;
const TOPICS = 150;
const MESSAGES_PER_TOPIC = 3;
/**
 * Descriptors this process may open besides the storage budget while the test runs: the test's HTTP client and the
 * broker's side of its connections, and what jest and Node open meanwhile. Far below the 450 the 150 topics held
 * (3 each: segment data, index, checkpoint) when every file stayed open.
 */
const OTHER_DESCRIPTORS = 64;

function openDescriptors(): number {
  return readdirSync('/proc/self/fd').length;
}

describe('descriptors are a budgeted resource (limits.maxOpenFiles)', () => {
  let broker: BrokerApp | undefined;

  afterEach(async () => {
    await broker?.close();
    broker = undefined;
  });

  it(`serves ${TOPICS} topics (publish, pull, read back) with at most ${BUDGET} storage files open, and restarts on them`, async () => {
    const baseline = openDescriptors();
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, openDescriptors())), 2);
    try {
      broker = await startBroker({ limits: { maxOpenFiles: BUDGET }, persistence: { flush: { intervalMs: 100 } } });
      const registered = await broker.request('POST', '/mmmq/dispatchers', { consumerId: 'reader', pattern: 'load.**' });
      expect(registered.status).toBe(201);
      const names = Array.from({ length: TOPICS }, (_, i) => `load.t${i}`);
      for (let round = 0; round < MESSAGES_PER_TOPIC; round++) {
        // One batch over every topic: the first one creates them all.
        const batch = await broker.request('POST', '/mmmq/messages/batch', {
          messages: names.map((topic) => ({ topic, content: { topic, round } })),
        });
        expect(batch.status).toBe(200);
      }
      const fetched = new Set<string>();
      await waitFor(
        async () => {
          const answer = await broker!.request('POST', '/mmmq/consumers/reader/fetch', { max: 1000, autoAck: true });
          for (const message of answer.body.messages as Array<{ topic: string; offset: number; content: { round: number } }>) {
            expect(message.content.round).toBe(message.offset);
            fetched.add(`${message.topic}@${message.offset}`);
          }
          return fetched.size === TOPICS * MESSAGES_PER_TOPIC;
        },
        { message: () => `every message fetched (${fetched.size} of ${TOPICS * MESSAGES_PER_TOPIC})` },
      );
      // Cold reads: every topic's files were closed and reopen on demand.
      for (const topic of names) {
        expect((await broker.stored(topic)).map((message) => JSON.parse(message.content).round)).toEqual([0, 1, 2]);
      }
      const { body: storage } = await broker.request('GET', '/mmmq/storage');
      expect(storage.descriptors.max).toBe(BUDGET);
      expect(storage.descriptors.peak).toBeLessThanOrEqual(BUDGET);
      expect(storage.descriptors.open).toBeLessThanOrEqual(BUDGET);
      expect(storage.descriptors.evictions).toBeGreaterThan(0);
      expect(storage.descriptors.reopens).toBeGreaterThan(0);
      expect(peak - baseline).toBeLessThanOrEqual(BUDGET + OTHER_DESCRIPTORS);

      // A restart recovers every topic through the same budget, and the consumer's positions with them.
      const rootDir = broker.rootDir;
      await broker.app.close();
      broker = await startBroker({ limits: { maxOpenFiles: BUDGET }, persistence: { rootDir } });
      expect(broker.topics.list().filter((queue) => queue.name.startsWith('load.'))).toHaveLength(TOPICS);
      const again = await broker.request('POST', '/mmmq/consumers/reader/fetch', { max: 1000, autoAck: true });
      expect(again.body.messages).toEqual([]);
      const batch = await broker.request('POST', '/mmmq/messages/batch', {
        messages: names.map((topic) => ({ topic, content: { topic, round: MESSAGES_PER_TOPIC } })),
      });
      expect(batch.status).toBe(200);
      const after = await broker.request('GET', '/mmmq/storage');
      expect(after.body.descriptors.peak).toBeLessThanOrEqual(BUDGET);
      expect(peak - baseline).toBeLessThanOrEqual(BUDGET + OTHER_DESCRIPTORS);
      await broker.close();
    } finally {
      clearInterval(sampler);
    }
  });
});

describe('caps on topics, dispatchers and subscriptions (limits.*)', () => {
  let broker: BrokerApp | undefined;

  afterEach(async () => {
    await broker?.close();
    broker = undefined;
  });

  const topicNames = async (app: BrokerApp) =>
    app.topics
      .list()
      .map((queue) => queue.name)
      .filter((name) => !name.startsWith('__'));

  it('refuses the (N+1)th topic with 429 naming limits.maxTopics, creating nothing of the batch', async () => {
    broker = await startBroker({ limits: { maxTopics: 3 } });
    for (const topic of ['a', 'b', 'c']) await broker.publish(topic, { topic });
    const single = await broker.request('POST', '/mmmq/messages', { topic: 'd', content: 1 });
    expect(single.status).toBe(429);
    expect(single.body.message).toContain('limits.maxTopics');
    expect(single.headers.get('retry-after')).toBe('60');
    // A batch naming an existing topic and two new ones: refused whole, nothing stored or created.
    const batch = await broker.request('POST', '/mmmq/messages/batch', {
      messages: [
        { topic: 'a', content: 2 },
        { topic: 'e', content: 3 },
        { topic: 'f', content: 4 },
      ],
    });
    expect(batch.status).toBe(429);
    expect(batch.body.message).toContain('limits.maxTopics (3)');
    expect((await topicNames(broker)).sort()).toEqual(['a', 'b', 'c']);
    expect(await broker.stored('a')).toHaveLength(1);
    expect(readdirSync(join(broker.rootDir, 'topics')).sort()).toEqual(['a', 'b', 'c']);
    // Existing topics keep taking messages.
    await broker.publish('b', 'still open');
  });

  it('refuses the (N+1)th dispatcher and one adding subscriptions past the cap with 429 naming it, registering nothing', async () => {
    broker = await startBroker({ limits: { maxTopics: 10, maxDispatchers: 3, maxSubscriptions: 8 } });
    for (let i = 1; i <= 5; i++) await broker.publish(`t${i}`, i);
    const add = (consumerId: string, pattern: string) => broker!.request('POST', '/mmmq/dispatchers', { consumerId, pattern });
    expect((await add('all', '**')).status).toBe(201); // 5 subscriptions
    expect((await add('one', 't1')).status).toBe(201); // 6
    const tooMany = await add('every', '**'); // would be 11
    expect(tooMany.status).toBe(429);
    expect(tooMany.body.message).toContain('limits.maxSubscriptions (8)');
    expect((await add('two', 't2')).status).toBe(201); // 7, and 3 dispatchers
    const fourth = await add('three', 't3');
    expect(fourth.status).toBe(429);
    expect(fourth.body.message).toContain('limits.maxDispatchers (3)');
    const { body: dispatchers } = await broker.request('GET', '/mmmq/dispatchers');
    const ids = (Array.isArray(dispatchers) ? dispatchers : dispatchers.dispatchers).map((d: { consumerId: string }) => d.consumerId);
    expect(ids.sort()).toEqual(['all', 'one', 'two']);
    const file = JSON.parse(readFileSync(join(broker.rootDir, 'dispatchers.json'), 'utf8')) as Array<{ consumerId: string }>;
    expect(file.map((d) => d.consumerId).sort()).toEqual(['all', 'one', 'two']);
    // A changed pattern that would add subscriptions past the cap is refused and changes nothing.
    const widened = await broker.request('PUT', '/mmmq/dispatchers/one', { consumerId: 'one', pattern: '**' });
    expect(widened.status).toBe(429);
    expect(widened.body.message).toContain('limits.maxSubscriptions');

    // A new topic subscribes every matching dispatcher: t6 adds one (8), t7 would add a ninth.
    await broker.publish('t6', 6);
    const subscriptions = async () => {
      const { body } = await broker!.request('GET', '/mmmq/subscriptions');
      return (Array.isArray(body) ? body : body.subscriptions).length as number;
    };
    await waitFor(async () => (await subscriptions()) === 8, { message: 'the 8th subscription (all → t6)' });
    const seventh = await broker.request('POST', '/mmmq/messages', { topic: 't7', content: 7 });
    expect(seventh.status).toBe(429);
    expect(seventh.body.message).toContain('limits.maxSubscriptions (8)');
    expect(await topicNames(broker)).not.toContain('t7');
    expect(await subscriptions()).toBe(8);
  });
});
