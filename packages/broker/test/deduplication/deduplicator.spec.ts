import { BrokerBus } from '../../src/events/broker-bus';
import { Topic } from '@mmmq/core';
import { Deduplicator } from '../../src/deduplication/deduplicator';
import type { PublishableMessage } from '../../src/format/publishable-message';
import type { TopicQueue, TopicQueueContainer } from '../../src/storage';
import type { TopicPolicies } from '../../src/topics/topic-policies';

const TOPIC = Topic.of('order.created');

/** A de-duplicator over one open topic, empty unless given (stand-ins: nothing is read from disk). */
function deduplicator(maxIds = 100, queue = { name: TOPIC.name, tailOffset: 0, startOffset: 0 } as TopicQueue): Deduplicator {
  const queues = { bus: new BrokerBus(), list: () => [queue] } as unknown as TopicQueueContainer;
  const policies = { of: () => ({ deduplication: { windowMs: 60_000, maxIds } }) } as unknown as TopicPolicies;
  const made = new Deduplicator(queues, policies);
  made.onModuleInit();
  return made;
}

const message = (id: string, idFromProducer = true): PublishableMessage => ({
  topic: TOPIC,
  id,
  idFromProducer,
  headers: {},
  content: Buffer.from('1'),
});

const stored = (id: string, offset: number) => [{ id, topic: TOPIC.name, offset, deliveryMode: 'persistent' as const }];

describe('Deduplicator', () => {
  it('lets a publish that waited for a failed commit of the same id be stored itself', async () => {
    const dedup = deduplicator();
    const first = (await dedup.claim([message('x')]))!;
    let second: Awaited<ReturnType<Deduplicator['claim']>> | 'waiting' = 'waiting';
    const claiming = Promise.resolve(dedup.claim([message('x')])).then((claim) => (second = claim));
    await Promise.resolve();
    expect(second).toBe('waiting');
    first.committed(undefined);
    await claiming;
    expect(second).not.toBe('waiting');
    const claim = second as unknown as NonNullable<Awaited<ReturnType<Deduplicator['claim']>>>;
    expect(claim.isDuplicate(0)).toBe(false);
    claim.committed(stored('x', 7));
    const third = (await dedup.claim([message('x')]))!;
    expect(third.fill([])[0]).toEqual({ id: 'x', topic: TOPIC.name, offset: 7, deliveryMode: 'persistent', duplicate: true });
  });

  it('does not deadlock two batches that name the same ids in opposite orders', async () => {
    const dedup = deduplicator();
    const a = (await dedup.claim([message('p'), message('q')]))!;
    const b = dedup.claim([message('q'), message('p')]);
    a.committed([...stored('p', 0), ...stored('q', 1)]);
    expect((await b)!.fill([]).map((ack) => (ack as { offset: number }).offset)).toEqual([1, 0]);
  });

  it('allocates nothing for messages with broker-assigned ids', async () => {
    expect(await deduplicator().claim([message('uuid', false)])).toBeUndefined();
  });

  it('keeps an id whose commit is in flight even at the cap, and evicts committed ones oldest first', async () => {
    const dedup = deduplicator(1);
    const pending = (await dedup.claim([message('a')]))!;
    const other = (await dedup.claim([message('b')]))!;
    expect(dedup.stats(TOPIC.name)).toEqual({ deduplicated: 0, evicted: 0, remembered: 2 });
    pending.committed(stored('a', 0));
    other.committed(stored('b', 1));
    (await dedup.claim([message('c')]))!.committed(stored('c', 2));
    expect(dedup.stats(TOPIC.name)).toMatchObject({ evicted: 2, remembered: 1 });
  });

  it('counts the topics still reading back their window, whose producer-id publishes wait until it is read', async () => {
    let read!: (entries: Buffer[]) => void;
    const peekMany = () => new Promise<Buffer[]>((resolve) => (read = resolve));
    const dedup = deduplicator(100, { name: TOPIC.name, tailOffset: 1, startOffset: 0, peekMany } as unknown as TopicQueue);
    expect(dedup.restoring).toBe(1);
    const claiming = Promise.resolve(dedup.claim([message('x')]));
    read([Buffer.from('{"id":"x","topic":"order.created","publishedAt":' + Date.now() + ',"headers":{},"content":1}')]);
    expect((await claiming)!.isDuplicate(0)).toBe(true);
    expect(dedup.restoring).toBe(0);
  });
});
