import { statSync } from 'node:fs';
import { Topic } from '@mmmq/core';
import { FileHandle } from '../../src/storage/file-handle';
import { WRITE_RECOVERY_DELAY_MS } from '../../src/storage/journal/journal';
import { RecordsCommittedEvent } from '../../src/storage/journal/records-committed.event';
import { StorageUnavailableError } from '../../src/storage/storage.errors';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { bytes, useTempDir } from './temp-dir';
import { flipByte, segmentPaths } from './segment-files';
import { Logger } from '@nestjs/common';
import { persistenceOptions } from '../support/topic-fixture';

// These tests provoke failures on purpose; what the broker logs about them is expected, so it is not printed.
Logger.overrideLogger(false);

describe('TopicQueue', () => {
  const dir = useTempDir();
  let container: TopicQueueContainer;
  const open = (maxBytes = 64 * 1024 * 1024) => {
    container = TopicQueueContainer.standalone(persistenceOptions(dir(), { segmentMaxBytes: maxBytes }));
    return container.getOrCreate(Topic.of('order.created'));
  };
  afterEach(async () => {
    jest.restoreAllMocks();
    jest.useRealTimers();
    await container.onApplicationShutdown();
  });

  it('group-commits a burst: one journal fsync per group, far fewer than messages, each ACK after a journal fsync', async () => {
    const queue = await open();
    let journalSyncs = 0;
    let topicSyncs = 0;
    const sync = FileHandle.prototype.sync;
    jest.spyOn(FileHandle.prototype, 'sync').mockImplementation(async function (this: FileHandle) {
      await sync.call(this);
      if (this.path.endsWith('.journal')) journalSyncs++;
      else topicSyncs++;
    });
    const offsets = await Promise.all(
      Array.from({ length: 2000 }, (_, i) => {
        const syncsBefore = journalSyncs;
        return queue.offer(bytes(`{"n":${i}}`)).then((offset) => {
          expect(journalSyncs).toBeGreaterThan(syncsBefore);
          return offset;
        });
      }),
    );
    expect(new Set(offsets).size).toBe(2000);
    expect(Math.max(...offsets)).toBe(1999);
    expect(journalSyncs).toBeLessThan(2000 / 20);
    expect(topicSyncs).toBe(0);
    for (let n = 0; n < 2000; n += 397) expect(String(await queue.peek(offsets[n]))).toBe(`{"n":${n}}`);
  });

  it('writes a lone publish at once (no timer holds it back for company)', async () => {
    const queue = await open();
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    await expect(queue.offer(bytes('alone'))).resolves.toBe(0);
  });

  it('appends offerAll as one contiguous unit', async () => {
    const queue = await open();
    await queue.offer(bytes('first'));
    const [a, b] = await Promise.all([queue.offerAll([bytes('a1'), bytes('a2'), bytes('a3')]), queue.offerAll([bytes('b1'), bytes('b2')])]);
    expect([a, b]).toEqual([1, 4]);
    expect(String(await queue.peek(3))).toBe('a3');
    expect(String(await queue.peek(5))).toBe('b2');
    expect(await queue.peek(6)).toBeNull();
  });

  it('NACKs the publishes a failed journal fsync covered, refuses writes for a while, then recovers without a hole', async () => {
    const queue = await open();
    await queue.offer(bytes('committed'));
    const sync = FileHandle.prototype.sync;
    const failing = jest.spyOn(FileHandle.prototype, 'sync').mockImplementation(async function (this: FileHandle) {
      if (this.path.endsWith('.journal')) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
      return sync.call(this);
    });
    const failed = await Promise.allSettled([queue.offer(bytes('x')), queue.offer(bytes('y'))]);
    expect(failed.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    failing.mockRestore();
    expect(queue.tailOffset).toBe(1);

    const refused = await queue.offer(bytes('too-soon')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StorageUnavailableError);
    expect((refused as StorageUnavailableError).retryAfterMs).toBeGreaterThan(0);
    expect((refused as Error).message).toMatch(/EIO/);

    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + WRITE_RECOVERY_DELAY_MS + 1);
    expect(await queue.offer(bytes('after'))).toBe(1);
    expect((await queue.peekMany(0, 10)).map(String)).toEqual(['committed', 'after']);
    jest.restoreAllMocks();
    await container.onApplicationShutdown();
    const reopened = await open();
    expect((await reopened.peekMany(0, 10)).map(String)).toEqual(['committed', 'after']);
  });

  it('NACKs a group whose topic file write fails, leaves no trace of it, and never replays it', async () => {
    const queue = await open();
    await queue.offer(bytes('committed'));
    const writeAt = FileHandle.prototype.writeAt;
    const failing = jest.spyOn(FileHandle.prototype, 'writeAt').mockImplementation(async function (this: FileHandle, buf, position) {
      if (this.path.endsWith('.mmm')) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      return writeAt.call(this, buf, position);
    });
    await expect(queue.offer(bytes('lost'))).rejects.toThrow(/ENOSPC/);
    failing.mockRestore();
    expect(queue.tailOffset).toBe(1);
    expect(statSync(segmentPaths(queue.dir).data).size).toBe(8 + 'committed'.length);
    await expect(queue.offer(bytes('too-soon'))).rejects.toThrow(StorageUnavailableError);

    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + WRITE_RECOVERY_DELAY_MS + 1);
    expect(await queue.offer(bytes('after'))).toBe(1);
    jest.restoreAllMocks();
    await container.onApplicationShutdown();
    const reopened = await open();
    expect((await reopened.peekMany(0, 10)).map(String)).toEqual(['committed', 'after']);
  });

  it('rotates segments between groups: a burst at maxBytes=1 stays dense and in order across a restart', async () => {
    const queue = await open(1);
    const offsets = await Promise.all(Array.from({ length: 50 }, (_, n) => queue.offer(bytes(`m${n}`))));
    expect(offsets).toEqual([...Array(50).keys()]);
    await container.onApplicationShutdown();
    const reopened = await open(1);
    const all: string[] = [];
    for (let offset = 0; offset < 50; offset++) all.push(String(await reopened.peek(offset)));
    expect(all).toEqual(Array.from({ length: 50 }, (_, n) => `m${n}`));
  });

  it('reads ranges from memory for recent entries and from disk for older ones, isolating corrupt entries', async () => {
    const queue = await open();
    await queue.offerAll(Array.from({ length: 5 }, (_, n) => bytes(`m${n}`)));
    expect((await queue.peekMany(1, 3)).map(String)).toEqual(['m1', 'm2', 'm3']);
    expect((await queue.peekMany(3, 10)).map(String)).toEqual(['m3', 'm4']);
    expect(await queue.peekMany(5, 10)).toEqual([]);
    await container.onApplicationShutdown();

    flipByte(segmentPaths(queue.dir).data, 2 * 10 + 9);
    const reopened = await open();
    const entries = await reopened.peekMany(0, 10);
    expect(entries.map((entry) => (entry instanceof Error ? entry.name : String(entry)))).toEqual([
      'm0',
      'm1',
      'ChecksumMismatchError',
      'm3',
      'm4',
    ]);
  });

  it('announces each committed record once on the bus, with the topics it appended to, before the offers resolve', async () => {
    const queue = await open();
    const other = await container.getOrCreate(Topic.of('other'));
    const seen: Array<{ topics: string[]; tail: number }> = [];
    const unsubscribe = container.bus.on<RecordsCommittedEvent>(RecordsCommittedEvent.NAME, ({ topics }) =>
      seen.push({ topics: topics.map((topic) => topic.name), tail: queue.tailOffset }),
    );
    await queue.offer(bytes('a'));
    await queue.offerAll([bytes('b'), bytes('c')]);
    // Two offers in one turn share one journal record: one event, both topics.
    await Promise.all([queue.offer(bytes('d')), other.offer(bytes('x'))]);
    await queue.checkpoints.open('billing', 0, queue.tailOffset).then((checkpoint) => checkpoint.write(1));
    unsubscribe();
    await queue.offer(bytes('e'));
    expect(seen).toEqual([
      { topics: [queue.name], tail: 1 },
      { topics: [queue.name], tail: 3 },
      { topics: [queue.name, 'other'], tail: 4 },
    ]);
  });

  it('records consumer checkpoints durably: journaled at once, in the checkpoint file after the flush', async () => {
    const queue = await open();
    await queue.offerAll(Array.from({ length: 6 }, (_, n) => bytes(`m${n}`)));
    await queue.commit('billing', 5);
    expect((await queue.checkpoints.open('billing', 0, queue.tailOffset)).offset).toBe(5);
    await container.onApplicationShutdown();
    const reopened = await open();
    expect((await reopened.checkpoints.open('billing', 0, reopened.tailOffset)).offset).toBe(5);
  });

  it('waits for in-flight commits on close and then refuses publishes', async () => {
    const queue = await open();
    const inFlight = queue.offer(bytes('in-flight'));
    await queue.close();
    await expect(inFlight).resolves.toBe(0);
    await expect(queue.offer(bytes('late'))).rejects.toThrow(StorageUnavailableError);
    await queue.close();
  });
});
