import { promises as fsp, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Topic } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { FileHandle } from '../../src/storage/file-handle';
import { StorageStats } from '../../src/storage/journal/storage-stats';
import type { TopicQueue } from '../../src/storage/topic-queue';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { persistenceOptions } from '../support/topic-fixture';
import { NO_AUTOMATIC_FLUSH } from './recovered-state';

// Opening and closing 1,000 topics is routine here: only problems are printed.
Logger.overrideLogger(['error', 'warn']);

// The module object itself (an `import * as` namespace has read-only bindings), so its functions can be spied on.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require('node:fs') as typeof import('node:fs');

const TOPIC_COUNT = 1000;
/** A few dozen fsyncs in total for 1,000 concurrent publishes over 1,000 topics (docs/performance.md). */
const MAX_FSYNCS_FOR_1000_PUBLISHES = 40;
/** Moving 1,000 checkpoints at once must cost a handful of journal fsyncs, not one per subscription. */
const MAX_JOURNAL_FSYNCS_FOR_1000_CHECKPOINTS = 5;

/**
 * Counts fsyncs three ways: the storage layer's own stats, the engine's one durability point (FileHandle.sync), and
 * every fsync/fdatasync Node is asked for (node's FileHandle for the directory syncs, fs.fdatasync for the files).
 */
class FsyncCounter {
  engine = 0;
  node = 0;

  static async install(dir: string): Promise<FsyncCounter> {
    const counter = new FsyncCounter();
    const sync = FileHandle.prototype.sync;
    jest.spyOn(FileHandle.prototype, 'sync').mockImplementation(function (this: FileHandle) {
      counter.engine++;
      return sync.call(this);
    });
    const probe = await fsp.open(dir, 'r');
    const nodeHandle = Object.getPrototypeOf(probe) as { sync: () => Promise<void>; datasync: () => Promise<void> };
    await probe.close();
    for (const method of ['sync', 'datasync'] as const) {
      const original = nodeHandle[method];
      jest.spyOn(nodeHandle, method).mockImplementation(function (this: unknown) {
        counter.node++;
        return original.call(this);
      });
    }
    // FileHandle holds raw descriptors (the descriptor pool may close and reopen them): its fsyncs are these calls.
    const fdatasync = fs.fdatasync;
    jest.spyOn(fs, 'fdatasync').mockImplementation((fd, callback) => {
      counter.node++;
      return fdatasync(fd, callback);
    });
    const fdatasyncSync = fs.fdatasyncSync;
    jest.spyOn(fs, 'fdatasyncSync').mockImplementation((fd) => {
      counter.node++;
      return fdatasyncSync(fd);
    });
    return counter;
  }

  /** The counts since `before` (the stats as they were then). */
  since(before: ReturnType<FsyncCounter['mark']>, stats: StorageStats) {
    return {
      stats: stats.totalFsyncs - before.total,
      journal: stats.journalFsyncs - before.journal,
      engine: this.engine - before.engine,
      node: this.node - before.node,
    };
  }

  /** The counts now (the storage layer's are live getters, so they are read here, not kept). */
  mark(stats: StorageStats) {
    return { total: stats.totalFsyncs, journal: stats.journalFsyncs, engine: this.engine, node: this.node };
  }
}

describe('fsyncs per commit (the journal is shared by every topic)', () => {
  let tempDir = '';
  const dir = () => tempDir;
  let container: TopicQueueContainer;
  let counter: FsyncCounter;
  let queues: TopicQueue[];
  /** What creating the topics cost, measured by the test that creates them. */
  let creation: ReturnType<FsyncCounter['since']>;

  beforeEach(async () => {
    tempDir = mkdtempSync(join(tmpdir(), 'mmmq-fsync-count-'));
    counter = await FsyncCounter.install(dir());
    container = TopicQueueContainer.standalone(persistenceOptions(join(dir(), 'broker'), NO_AUTOMATIC_FLUSH));
    await container.whenRecovered();
    const before = counter.mark(container.journal.stats);
    queues = await Promise.all(Array.from({ length: TOPIC_COUNT }, (_, i) => container.getOrCreate(Topic.of(`topic.${i}`))));
    creation = counter.since(before, container.journal.stats);
  });

  afterEach(async () => {
    // The broker closes (and flushes) before its directory goes.
    await container.onApplicationShutdown();
    jest.restoreAllMocks();
    rmSync(tempDir, { recursive: true, force: true });
  });

  it('1,000 concurrent publishes over 1,000 topics take a few dozen fsyncs in all, counted by the storage layer and by spies', async () => {
    // Creating a topic fsyncs nothing: its files and directory become durable at the first flush after it is
    // written (the journal holds its entries until then).
    expect(creation.journal).toBe(0);
    expect(creation.node).toBe(0);
    const before = counter.mark(container.journal.stats);
    const offsets = await Promise.all(queues.map((queue, i) => queue.offer(Buffer.from(`message ${i}`))));
    const spent = counter.since(before, container.journal.stats);
    expect(offsets).toEqual(queues.map(() => 0));
    expect(spent.stats).toBeLessThanOrEqual(MAX_FSYNCS_FOR_1000_PUBLISHES);
    expect(spent.engine).toBeLessThanOrEqual(MAX_FSYNCS_FOR_1000_PUBLISHES);
    expect(spent.node).toBeLessThanOrEqual(MAX_FSYNCS_FOR_1000_PUBLISHES);
    // The storage layer's count is the truth the spies see.
    expect(spent.stats).toBe(spent.node);
    expect(String(await queues[TOPIC_COUNT - 1].peek(0))).toBe(`message ${TOPIC_COUNT - 1}`);
  });

  it('moving the checkpoints of 1,000 subscriptions at once costs a handful of journal fsyncs, not 1,000', async () => {
    await Promise.all(queues.map((queue) => queue.offerAll([Buffer.from('a'), Buffer.from('b')])));
    // Creating a checkpoint writes its file once; that is the subscription's start, not a move.
    await Promise.all(queues.map((queue) => queue.checkpoints.open('billing', 0, queue.tailOffset)));
    const before = counter.mark(container.journal.stats);
    await Promise.all(queues.map((queue) => queue.commit('billing', 1)));
    await Promise.all(queues.map((queue) => queue.commit('billing', 2)));
    const spent = counter.since(before, container.journal.stats);
    expect(spent.journal).toBeLessThanOrEqual(MAX_JOURNAL_FSYNCS_FOR_1000_CHECKPOINTS);
    expect(spent.node).toBe(spent.journal);
    for (const queue of [queues[0], queues[TOPIC_COUNT - 1]]) expect((await queue.checkpoints.open('billing', 0, 2)).offset).toBe(2);
  });

  it('a flush fsyncs only the dirty topics: after publishing to 3 of 1,000 topics it costs a handful of fsyncs', async () => {
    await Promise.all(queues.slice(0, 3).map((queue) => queue.offer(Buffer.from('x'))));
    const before = counter.mark(container.journal.stats);
    await container.journal.flush();
    const spent = counter.since(before, container.journal.stats);
    // Data, index and (the first time after its creation) directory of each dirty topic, `topics/` (new topics
    // were created in it), then the journal record saying so.
    expect(spent.node).toBeLessThanOrEqual(3 * 3 + 2);
    expect(spent.stats).toBe(spent.node);
  });
});
