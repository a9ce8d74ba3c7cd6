import { rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Topic } from '@mmmq/core';
import * as fileHandle from '../../src/storage/file-handle';
import { fsyncCount } from '../../src/storage/file-handle';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { persistenceOptions } from '../support/topic-fixture';
import { crashCopy, JOURNAL_FILES, losePower } from './crash-copy';
import { IoSpy } from './io-spy';
import { NO_AUTOMATIC_FLUSH, recoverState } from './recovered-state';
import { bytes, useTempDir } from './temp-dir';

const CHECKPOINT_FILES = /\.checkpoint$/;

describe('a new topic and its first subscription cost no fsync of their own', () => {
  const dir = useTempDir();
  let container: TopicQueueContainer;
  let spy: IoSpy;

  beforeEach(async () => {
    spy = IoSpy.install();
    container = TopicQueueContainer.standalone(persistenceOptions(join(dir(), 'broker'), NO_AUTOMATIC_FLUSH));
    await container.whenRecovered();
  });

  afterEach(async () => {
    await container.onApplicationShutdown();
    jest.restoreAllMocks();
  });

  it('creating a topic, its checkpoint at the tail and a first ACKed publish fsync only the journal', async () => {
    const before = { total: fsyncCount(), journal: container.journal.stats.journalFsyncs };
    const queue = await container.getOrCreate(Topic.of('fresh'));
    const checkpoint = await queue.checkpoints.open('reader', queue.tailOffset, queue.tailOffset);
    expect(await queue.offer(bytes('first'))).toBe(0);
    const journal = container.journal.stats.journalFsyncs - before.journal;
    expect(journal).toBeGreaterThanOrEqual(1);
    expect(fsyncCount() - before.total).toBe(journal);
    expect(checkpoint.offset).toBe(0);
  });

  it('a power loss right after the first ACKed publish to a new topic loses neither the message nor where its reader starts', async () => {
    await container.getOrCreate(Topic.of('old'));
    await container.journal.flush();
    const queue = await container.getOrCreate(Topic.of('fresh'));
    // A subscription starting at the tail (`startFrom: latest`): after a restart it must not start at the new tail.
    await queue.checkpoints.open('reader', queue.tailOffset, queue.tailOffset);
    await queue.offer(bytes('first'));
    const crash = crashCopy(join(dir(), 'broker'), join(dir(), 'crash'), spy);
    // Nothing fsync'd the new directory's entries: the power loss takes the whole topic, and every unsynced byte.
    rmSync(join(crash.dir, 'topics', 'fresh'), { recursive: true, force: true });
    losePower(crash, 'cut', new RegExp(`${JOURNAL_FILES.source}|${CHECKPOINT_FILES.source}`));
    const recovered = await recoverState(crash.dir, ['fresh']);
    expect(recovered.topics.fresh).toEqual(['first']);
    expect(recovered.checkpoints['fresh/reader']).toBe(0);
  });

  it('the next flush makes the new directory entries durable, once each, before the journal forgets them', async () => {
    const synced = jest.spyOn(fileHandle, 'syncDirectory');
    const queue = await container.getOrCreate(Topic.of('fresh'));
    await queue.checkpoints.open('reader', 0, 0);
    await queue.offer(bytes('first'));
    expect(synced).not.toHaveBeenCalled();
    await container.journal.flush();
    const topicDir = join(container.topicsDir, 'fresh');
    expect(synced.mock.calls.map(([path]) => path).sort()).toEqual([container.topicsDir, topicDir, join(topicDir, 'checkpoints')].sort());
    expect(spy.durableSizes.get(join(topicDir, 'checkpoints', 'reader.checkpoint'))).toBe(8);
  });

  it('a topic nobody publishes to or reads costs no fsync of its directory', async () => {
    const synced = jest.spyOn(fileHandle, 'syncDirectory');
    await container.getOrCreate(Topic.of('idle'));
    await container.journal.flush();
    expect(synced.mock.calls.map(([path]) => path)).toEqual([container.topicsDir]);
  });

  it('a checkpoint whose first value the journal refused is emptied, so the next open journals it again', async () => {
    const queue = await container.getOrCreate(Topic.of('fresh'));
    const commit = jest.spyOn(container.journal, 'commit').mockRejectedValueOnce(new Error('journal refused'));
    await expect(queue.checkpoints.open('reader', 0, 0)).rejects.toThrow('Writing checkpoint');
    const path = join(queue.checkpoints.path, 'reader.checkpoint');
    expect(statSync(path).size).toBe(0);
    commit.mockRestore();
    const journaled = jest.spyOn(container.journal, 'commit');
    expect((await queue.checkpoints.open('reader', 0, 0)).offset).toBe(0);
    expect(journaled).toHaveBeenCalledTimes(1);
  });

  it('deleting a checkpoint fsyncs nothing before the flush; a power loss that undoes the unlink is undone by the replay', async () => {
    const queue = await container.getOrCreate(Topic.of('fresh'));
    await queue.checkpoints.open('reader', 0, 0);
    await container.journal.flush();
    const path = join(queue.checkpoints.path, 'reader.checkpoint');
    const synced = jest.spyOn(fileHandle, 'syncDirectory');
    await queue.checkpoints.delete('reader');
    expect(synced).not.toHaveBeenCalled();
    const crash = crashCopy(join(dir(), 'broker'), join(dir(), 'crash'), spy);
    // The unlink never reached the disk: the file is back, with the value its last flush wrote.
    writeFileSync(join(crash.dir, relative(join(dir(), 'broker'), path)), Buffer.alloc(8));
    expect((await recoverState(crash.dir, ['fresh'])).checkpoints).toEqual({});
    await container.journal.flush();
    const ours = synced.mock.calls.map(([directory]) => directory).filter((directory) => !directory.startsWith(crash.dir));
    expect(ours).toEqual([queue.checkpoints.path]);
  });
});
