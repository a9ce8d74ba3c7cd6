import { Logger } from '@nestjs/common';
import { DiskGuard } from '../../src/storage/disk-guard';
import { DiskSpaceLowError, StorageUnavailableError } from '../../src/storage/storage.errors';

const MiB = 2 ** 20;
const PERSISTENCE = { rootDir: '/data/mmmq', segmentMaxBytes: MiB, flushIntervalMs: 1000, flushBytes: MiB };

/** A guard over a file system whose free space the test sets. */
function guardWithFreeSpace(free: { bytes: number | Error }, enabled = true) {
  const probe = jest.fn(async () => {
    if (free.bytes instanceof Error) throw free.bytes;
    return free.bytes;
  });
  const guard = new DiskGuard(PERSISTENCE, { enabled, minFreeBytes: 256 * MiB, checkIntervalMs: 3_000 }, probe);
  return { guard, probe };
}

describe('DiskGuard', () => {
  let warn: jest.SpyInstance;
  let log: jest.SpyInstance;
  const guards: DiskGuard[] = [];

  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });
  afterEach(() => {
    for (const guard of guards.splice(0)) guard.onApplicationShutdown();
    jest.restoreAllMocks();
  });

  it('refuses publishes once free space drops below minFreeBytes and resumes once it is back, logging each change once', async () => {
    const free = { bytes: 300 * MiB };
    const { guard, probe } = guardWithFreeSpace(free);
    guards.push(guard);
    await guard.onModuleInit();
    expect(probe).toHaveBeenCalledWith('/data/mmmq');
    expect(() => guard.assertMayPublish()).not.toThrow();

    free.bytes = 40 * MiB;
    await guard.check();
    await guard.check();
    expect(guard.refusing).toBe(true);
    let refusal: unknown;
    try {
      guard.assertMayPublish();
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DiskSpaceLowError);
    expect(refusal).toBeInstanceOf(StorageUnavailableError);
    expect((refusal as DiskSpaceLowError).retryAfterMs).toBe(3_000);
    expect((refusal as Error).message).toBe(
      "The broker's disk has 40 MiB free, below the disk guard's 256 MiB (persistence.diskGuard.minFreeBytes); " +
        'publishing resumes when space is freed',
    );
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toMatch(/^Refusing publishes \(503\): \/data\/mmmq has 41943040 bytes free/);

    free.bytes = 256 * MiB;
    await guard.check();
    await guard.check();
    expect(guard.refusing).toBe(false);
    expect(() => guard.assertMayPublish()).not.toThrow();
    expect(log).toHaveBeenCalledTimes(1);
    expect(log.mock.calls[0][0]).toMatch(/^Publishing resumed/);
  });

  it('checks again every checkIntervalMs, until shut down', async () => {
    jest.useFakeTimers();
    try {
      const free = { bytes: 300 * MiB };
      const { guard, probe } = guardWithFreeSpace(free);
      await guard.onModuleInit();
      free.bytes = MiB;
      await jest.advanceTimersByTimeAsync(3_000);
      expect(probe).toHaveBeenCalledTimes(2);
      expect(guard.refusing).toBe(true);
      guard.onApplicationShutdown();
      guard.onApplicationShutdown();
      await jest.advanceTimersByTimeAsync(30_000);
      expect(probe).toHaveBeenCalledTimes(2);
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('keeps its last answer when the free space cannot be read, warning once', async () => {
    const free: { bytes: number | Error } = { bytes: MiB };
    const { guard } = guardWithFreeSpace(free);
    guards.push(guard);
    await guard.onModuleInit();
    free.bytes = new Error('EIO: i/o error, statfs');
    await guard.check();
    await guard.check();
    expect(guard.refusing).toBe(true);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn.mock.calls[1][0]).toMatch(/cannot read the free space of \/data\/mmmq, keeping its last answer: EIO/);
  });

  it('never reads the disk nor refuses when disabled', async () => {
    const { guard, probe } = guardWithFreeSpace({ bytes: 0 }, false);
    guards.push(guard);
    await guard.onModuleInit();
    expect(probe).not.toHaveBeenCalled();
    expect(() => guard.assertMayPublish()).not.toThrow();
  });
});
