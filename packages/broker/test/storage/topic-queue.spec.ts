import { statSync } from 'node:fs';
import { Topic } from '@mmmq/core';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { FileHandle } from '../../src/storage/file-handle';
import { WRITE_RECOVERY_DELAY_MS } from '../../src/storage/group-commit';
import { StorageUnavailableError } from '../../src/storage/storage.errors';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { bytes, useTempDir } from './temp-dir';
import { flipByte, segmentPaths } from './segment-files';
import { Logger } from '@nestjs/common';

// These tests provoke failures on purpose; what the broker logs about them is expected, so it is not printed.
Logger.overrideLogger(false);

describe('TopicQueue', () => {
  const dir = useTempDir();
  let container: TopicQueueContainer;
  const open = (maxBytes = 64 * 1024 * 1024) => {
    container = new TopicQueueContainer({ rootDir: dir(), segmentMaxBytes: maxBytes }, new EventEmitter2());
    return container.getOrCreate(Topic.of('order.created'));
  };
  afterEach(async () => {
    jest.restoreAllMocks();
    jest.useRealTimers();
    await container.onApplicationShutdown();
  });

  it('group-commits a burst: far fewer fsyncs than messages, each ACK after the index fsync covering it', async () => {
    const queue = await open();
    const indexPath = segmentPaths(queue.dir).index;
    let syncs = 0;
    let durableEntries = 0;
    const sync = FileHandle.prototype.sync;
    jest.spyOn(FileHandle.prototype, 'sync').mockImplementation(async function (this: FileHandle) {
      syncs++;
      await sync.call(this);
      if (this.path === indexPath) durableEntries = statSync(indexPath).size / 8;
    });
    const offsets = await Promise.all(
      Array.from({ length: 2000 }, (_, i) =>
        queue.offer(bytes(`{"n":${i}}`)).then((offset) => {
          expect(offset).toBeLessThan(durableEntries);
          return offset;
        }),
      ),
    );
    expect(new Set(offsets).size).toBe(2000);
    expect(Math.max(...offsets)).toBe(1999);
    expect(syncs).toBeLessThan(2000 / 20);
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
    const [a, b] = await Promise.all([
      queue.offerAll([bytes('a1'), bytes('a2'), bytes('a3')]),
      queue.offerAll([bytes('b1'), bytes('b2')]),
    ]);
    expect([a, b]).toEqual([1, 4]);
    expect(String(await queue.peek(3))).toBe('a3');
    expect(String(await queue.peek(5))).toBe('b2');
    expect(await queue.peek(6)).toBeNull();
  });

  it('NACKs the publishes a failed fsync covered, refuses writes for a while, then recovers without a hole', async () => {
    const queue = await open();
    await queue.offer(bytes('committed'));
    const sync = FileHandle.prototype.sync;
    const failing = jest.spyOn(FileHandle.prototype, 'sync').mockImplementation(async function (this: FileHandle) {
      if (this.path.endsWith('.idx')) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
      return sync.call(this);
    });
    const failed = await Promise.allSettled([queue.offer(bytes('x')), queue.offer(bytes('y'))]);
    expect(failed.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    failing.mockRestore();

    const refused = await queue.offer(bytes('too-soon')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StorageUnavailableError);
    expect((refused as StorageUnavailableError).retryAfterMs).toBeGreaterThan(0);
    expect((refused as Error).message).toMatch(/EIO/);

    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + WRITE_RECOVERY_DELAY_MS + 1);
    expect(await queue.offer(bytes('after'))).toBe(1);
    expect(String(await queue.peek(0))).toBe('committed');
    expect(String(await queue.peek(1))).toBe('after');
  });

  describe('with the next group written while one is being indexed', () => {
    /** Records every fsync and holds the first index fsync until released, then lets it pass or fail. */
    const holdFirstIndexSync = (outcome: 'pass' | 'fail') => {
      const events: string[] = [];
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let held = false;
      const sync = FileHandle.prototype.sync;
      jest.spyOn(FileHandle.prototype, 'sync').mockImplementation(async function (this: FileHandle) {
        const file = this.path.slice(-4);
        events.push(`${file} start`);
        if (file === '.idx' && !held) {
          held = true;
          await released;
          if (outcome === 'fail') throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
        }
        await sync.call(this);
        events.push(`${file} end`);
      });
      return { events, release, isHeld: () => held };
    };
    const until = async (condition: () => boolean) => {
      while (!condition()) await new Promise((resolve) => setImmediate(resolve));
    };

    it('fsyncs the next group\'s data during the index fsync before it, and ACKs each after its own index fsync', async () => {
      const queue = await open();
      const fsyncs = holdFirstIndexSync('pass');
      const acked = (offset: number) => {
        fsyncs.events.push(`ack ${offset}`);
        return offset;
      };
      const first = queue.offer(bytes('first')).then(acked);
      await until(fsyncs.isHeld);
      const second = queue.offer(bytes('second')).then(acked);
      await until(() => fsyncs.events.filter((event) => event === '.mmm end').length === 2);
      expect(fsyncs.events).not.toContain('ack 0');
      fsyncs.release();
      await expect(Promise.all([first, second])).resolves.toEqual([0, 1]);

      const { events } = fsyncs;
      const indexEnds = events.flatMap((event, i) => (event === '.idx end' ? [i] : []));
      expect(indexEnds).toHaveLength(2);
      expect(events.lastIndexOf('.mmm end')).toBeLessThan(indexEnds[0]);
      expect(events.indexOf('ack 0')).toBeGreaterThan(indexEnds[0]);
      expect(events.indexOf('ack 1')).toBeGreaterThan(indexEnds[1]);
      expect((await queue.peekMany(0, 10)).map(String)).toEqual(['first', 'second']);
    });

    it('NACKs both groups when the index fsync fails with the next group staged, and leaves no trace of either', async () => {
      const queue = await open();
      await queue.offer(bytes('committed'));
      const fsyncs = holdFirstIndexSync('fail');
      const first = queue.offer(bytes('first')).catch((error: unknown) => error);
      await until(fsyncs.isHeld);
      const second = queue.offer(bytes('second')).catch((error: unknown) => error);
      await until(() => fsyncs.events.filter((event) => event === '.mmm end').length === 2);
      fsyncs.release();
      expect(await first).toBeInstanceOf(StorageUnavailableError);
      expect(await second).toBeInstanceOf(StorageUnavailableError);
      jest.restoreAllMocks();
      expect(statSync(segmentPaths(queue.dir).data).size).toBe(8 + 'committed'.length);

      const now = Date.now();
      jest.spyOn(Date, 'now').mockReturnValue(now + WRITE_RECOVERY_DELAY_MS + 1);
      expect(await queue.offer(bytes('after'))).toBe(1);
      expect((await queue.peekMany(0, 10)).map(String)).toEqual(['committed', 'after']);
    });

    it('rotates segments between groups: a burst at maxBytes=1 stays dense and in order across a restart', async () => {
      const queue = await open(1);
      const offsets = await Promise.all(Array.from({ length: 50 }, (_, n) => queue.offer(bytes(`m${n}`))));
      expect(offsets).toEqual([...Array(50).keys()]);
      await container.onApplicationShutdown();
      const reopened = await open(1);
      expect((await reopened.peekMany(0, 100)).length).toBeGreaterThan(0);
      const all: string[] = [];
      for (let offset = 0; offset < 50; offset++) all.push(String(await reopened.peek(offset)));
      expect(all).toEqual(Array.from({ length: 50 }, (_, n) => `m${n}`));
    });
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

  it('notifies subscribers with the new tail after each commit', async () => {
    const queue = await open();
    const tails: number[] = [];
    const unsubscribe = queue.subscribe((tail) => tails.push(tail));
    await queue.offer(bytes('a'));
    await queue.offerAll([bytes('b'), bytes('c')]);
    unsubscribe();
    await queue.offer(bytes('d'));
    expect(tails).toEqual([1, 3]);
  });

  it('records consumer checkpoints durably', async () => {
    const queue = await open();
    await queue.commit('billing', 5);
    expect((await queue.checkpoints.open('billing', 0, queue.tailOffset)).offset).toBe(5);
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
