import { Topic } from '@mmmq/core';
import { waitFor } from '@mmmq/test-support';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { persistenceOptions } from '../support/topic-fixture';
import { NO_AUTOMATIC_FLUSH } from './recovered-state';
import { useTempDir } from './temp-dir';

/** Short enough for a test to see the deferred fsync happen, long enough that a burst of commits shares it. */
const FSYNC_INTERVAL_MS = 200;

const payload = (n: number) => Buffer.from(`{"n":${n}}`);

describe('the journal under each flush policy (fsync always, interval, never)', () => {
  const dir = useTempDir();
  let container: TopicQueueContainer | undefined;

  afterEach(async () => {
    await container?.onApplicationShutdown();
    container = undefined;
  });

  async function open() {
    container = TopicQueueContainer.standalone(persistenceOptions(dir(), { ...NO_AUTOMATIC_FLUSH, fsyncIntervalMs: FSYNC_INTERVAL_MS }));
    const queue = await container.getOrCreate(Topic.of('orders'));
    const { journal } = container;
    const commit = (n: number, fsync: 'always' | 'interval' | 'never') =>
      journal.commit([{ topic: queue, payloads: [payload(n)] }], false, fsync);
    return { queue, journal, commit };
  }

  it('answers interval commits once written, visible, before any fsync; one fsync covers them within the interval', async () => {
    const { queue, journal, commit } = await open();
    const before = journal.stats.journalFsyncs;

    const offsets = await Promise.all(Array.from({ length: 50 }, (_, n) => commit(n, 'interval')));

    expect(offsets.map(([offset]) => offset)).toEqual(Array.from({ length: 50 }, (_, n) => n));
    expect(journal.stats.journalFsyncs).toBe(before);
    expect(String(await queue.peek(49))).toBe('{"n":49}');
    await waitFor(() => journal.stats.journalFsyncs === before + 1, {
      deadlineMs: 30_000,
      message: 'the interval commits fsync’d together after the interval',
    });
  });

  it('never fsyncs never commits on their own; the next always commit fsyncs them with its own record', async () => {
    const { journal, commit } = await open();
    const before = journal.stats.journalFsyncs;

    for (let n = 0; n < 20; n++) await commit(n, 'never');
    expect(journal.stats.journalFsyncs).toBe(before);

    await commit(20, 'always');
    expect(journal.stats.journalFsyncs).toBe(before + 1);
  });

  it('fsyncs a group before answering any of it when one of its commits asks for always', async () => {
    const { journal, commit } = await open();
    const before = journal.stats.journalFsyncs;

    // Made in one turn: one record for all three.
    const settled = await Promise.all([commit(0, 'never'), commit(1, 'always'), commit(2, 'interval')]);

    expect(settled.map(([offset]) => offset)).toEqual([0, 1, 2]);
    expect(journal.stats.journalFsyncs).toBe(before + 1);
  });

  it('keeps interval and never commits across a clean shutdown: closing fsyncs what was written', async () => {
    const { commit } = await open();
    for (let n = 0; n < 10; n++) await commit(n, n % 2 === 0 ? 'interval' : 'never');
    await container!.onApplicationShutdown();

    const { queue } = await open();

    expect(queue.tailOffset).toBe(10);
    expect(String(await queue.peek(9))).toBe('{"n":9}');
  });
});
