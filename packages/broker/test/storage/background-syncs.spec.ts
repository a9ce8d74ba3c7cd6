import { Topic } from '@mmmq/core';
import { join } from 'node:path';
import { BACKGROUND_SYNCS_MAX, BackgroundSyncs } from '../../src/storage/background-syncs';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { persistenceOptions } from '../support/topic-fixture';
import { NO_AUTOMATIC_FLUSH } from './recovered-state';
import { bytes, useTempDir } from './temp-dir';

// The module object itself, so its functions can be spied on (an `import * as` namespace is read-only).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require('node:fs') as typeof import('node:fs');

/** Resolves after `ms`, counting how many such tasks run at once. */
function tracked(state: { now: number; most: number }, ms: number): Promise<void> {
  state.now++;
  state.most = Math.max(state.most, state.now);
  return new Promise((resolve) => setTimeout(resolve, ms)).then(() => void state.now--);
}

describe('BackgroundSyncs', () => {
  it('runs at most `max` tasks at once, every one of them in the end', async () => {
    const limit = new BackgroundSyncs(2);
    const state = { now: 0, most: 0 };
    const done: number[] = [];
    await Promise.all([0, 1, 2, 3, 4].map((i) => limit.run(() => tracked(state, 5).then(() => void done.push(i)))));
    expect(state.most).toBe(2);
    expect(done.sort()).toEqual([0, 1, 2, 3, 4]);
    expect(limit.active).toBe(0);
  });

  it('each: stops starting tasks at the first failure, lets the running ones end, and rejects with it', async () => {
    const limit = new BackgroundSyncs(2);
    const started: number[] = [];
    const run = limit.each([0, 1, 2, 3, 4, 5], async (i) => {
      started.push(i);
      if (i === 1) throw new Error('fsync failed');
      await new Promise((resolve) => setTimeout(resolve, 5));
    });
    await expect(run).rejects.toThrow('fsync failed');
    expect(started.length).toBeLessThan(6);
    expect(limit.active).toBe(0);
  });
});

describe('a flush of many dirty topics', () => {
  const dir = useTempDir();
  afterEach(() => jest.restoreAllMocks());

  it(`runs at most ${BACKGROUND_SYNCS_MAX} fsyncs on the thread pool at once, and commits go on meanwhile`, async () => {
    const container = TopicQueueContainer.standalone(persistenceOptions(join(dir(), 'broker'), NO_AUTOMATIC_FLUSH));
    try {
      const queues = await Promise.all(Array.from({ length: 20 }, (_, i) => container.getOrCreate(Topic.of(`topic.${i}`))));
      await Promise.all(queues.map((queue) => queue.offer(bytes('x'))));
      const state = { now: 0, most: 0 };
      const fdatasync = fs.fdatasync;
      jest.spyOn(fs, 'fdatasync').mockImplementation((fd, callback) => {
        void tracked(state, 2).then(() => fdatasync(fd, callback));
      });
      const flushing = container.journal.flush();
      // A commit made while the flush runs is answered before the flush ends (its fsync is the journal's own).
      const during = await Promise.race([queues[0].offer(bytes('during')).then(() => 'committed'), flushing.then(() => 'flushed')]);
      await flushing;
      expect(during).toBe('committed');
      expect(state.most).toBe(BACKGROUND_SYNCS_MAX);
      // Counted whole although they ran side by side: data and index of 20 topics, their directories, `topics/`.
      const { stats } = container.journal;
      expect(stats.flushFsyncs).toBe(20 * 3 + 1);
    } finally {
      await container.onApplicationShutdown();
    }
  });
});
