import { join } from 'node:path';
import { Topic } from '@mmmq/core';
import { useTempDir } from '@mmmq/test-support';
import { GROUP_COMMIT_MAX_BYTES } from '../../src/storage/journal/journal';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { persistenceOptions } from '../support/topic-fixture';
import { NO_AUTOMATIC_FLUSH } from './recovered-state';

/** A quarter of the cap: four payloads fill a group exactly, a fifth starts the next one. */
const PAYLOAD_BYTES = GROUP_COMMIT_MAX_BYTES / 4;
const PUBLISHES = 10;

describe('group commit: a burst over GROUP_COMMIT_MAX_BYTES', () => {
  const dir = useTempDir('mmmq-group-split-');
  let container: TopicQueueContainer;

  beforeEach(async () => {
    container = TopicQueueContainer.standalone(persistenceOptions(join(dir(), 'broker'), NO_AUTOMATIC_FLUSH));
    await container.whenRecovered();
  });
  afterEach(() => container.onApplicationShutdown());

  it('splits into several records, one fsync each, and acknowledges every publish at its own offset, in order', async () => {
    const queue = await container.getOrCreate(Topic.of('bulk.upload'));
    const { stats } = container.journal;
    const before = { commits: stats.commits, fsyncs: stats.journalFsyncs };
    const payloads = Array.from({ length: PUBLISHES }, (_, n) => Buffer.alloc(PAYLOAD_BYTES, n));

    // Offered in one turn of the event loop: without the cap they would all share one record.
    const offsets = await Promise.all(payloads.map((payload) => queue.offer(payload)));

    expect(offsets).toEqual(payloads.map((_, n) => n));
    // 4 + 4 + 2 payloads: the cap is inclusive, and the group never exceeds it.
    expect(stats.commits - before.commits).toBe(3);
    expect(stats.journalFsyncs - before.fsyncs).toBe(3);
    for (const n of [0, 4, 9]) expect((await queue.peek(n))?.equals(payloads[n])).toBe(true);
  });

  it('still commits a single publish larger than the cap, alone in its record', async () => {
    const queue = await container.getOrCreate(Topic.of('bulk.huge'));
    const { stats } = container.journal;
    const before = stats.commits;
    const huge = Buffer.alloc(GROUP_COMMIT_MAX_BYTES + 1, 7);

    const offsets = await Promise.all([queue.offer(Buffer.from('small')), queue.offer(huge), queue.offer(Buffer.from('after'))]);

    expect(offsets).toEqual([0, 1, 2]);
    expect(stats.commits - before).toBe(3);
    expect((await queue.peek(1))?.length).toBe(huge.length);
  });
});
