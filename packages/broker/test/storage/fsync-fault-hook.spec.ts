import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { FAULT_FSYNC_EIO_VARIABLES as HOOK, fsyncFunctions } from '../../src/storage/file-handle';
import { useTempDir } from './temp-dir';

function thrown(run: () => void): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** The fault suite's test-only hook (fault/src/scenarios/fsync-eio.ts): fsyncs failing with EIO on demand. */
describe('the fsync fault-injection hook (MMMQ_FAULT_FSYNC_EIO_*)', () => {
  const dir = useTempDir();
  let warnings: jest.SpyInstance;
  beforeEach(() => (warnings = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined)));
  afterEach(() => warnings.mockRestore());

  it('is off without the variables, and says nothing', async () => {
    const fsyncs = fsyncFunctions({});
    const fd = openSync(join(dir(), 'plain'), 'w');
    try {
      fsyncs.onLoop(fd, '/data/journal/1');
      await fsyncs.inPool(fd, '/data/journal/1');
    } finally {
      closeSync(fd);
    }
    expect(warnings).not.toHaveBeenCalled();
  });

  it('fails COUNT fsyncs of matching files after the first AFTER, with EIO, and warns that it is on', async () => {
    const fsyncs = fsyncFunctions({ [HOOK.after]: '1', [HOOK.count]: '2', [HOOK.path]: '/journal/' });
    const fd = openSync(join(dir(), 'faulty'), 'w');
    try {
      fsyncs.onLoop(fd, '/data/topics/t/0.mmm'); // another file: neither counted nor failed
      fsyncs.onLoop(fd, '/data/journal/1'); // the first AFTER succeed
      expect(thrown(() => fsyncs.onLoop(fd, '/data/journal/1'))).toMatchObject({ code: 'EIO', syscall: 'fdatasync' });
      await expect(fsyncs.inPool(fd, '/data/journal/1')).rejects.toMatchObject({ code: 'EIO' });
      fsyncs.onLoop(fd, '/data/journal/1'); // COUNT used up: fsyncs succeed again
      await fsyncs.inPool(fd, '/data/journal/1');
    } finally {
      closeSync(fd);
    }
    expect(warnings).toHaveBeenCalledWith(expect.stringMatching(/never for production/));
  });

  it('refuses a value that is not a non-negative integer', () => {
    expect(() => fsyncFunctions({ [HOOK.after]: 'two' })).toThrow(/MMMQ_FAULT_FSYNC_EIO_AFTER/);
    expect(() => fsyncFunctions({ [HOOK.after]: '0', [HOOK.count]: '-1' })).toThrow(/MMMQ_FAULT_FSYNC_EIO_COUNT/);
  });

  it('is read once, when the module loads: FileHandle.sync then fails through it', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { [HOOK.after]: '0', [HOOK.count]: '1' });
    try {
      await jest.isolateModulesAsync(async () => {
        const { FileHandle } = (await import('../../src/storage/file-handle')) as typeof import('../../src/storage/file-handle');
        const file = await FileHandle.open(join(dir(), 'hooked'), true);
        await file.append(Buffer.from('x'));
        await expect(file.sync(true)).rejects.toMatchObject({ code: 'EIO' });
        await file.sync(true);
        await file.close();
      });
    } finally {
      for (const name of Object.values(HOOK)) if (!(name in saved)) delete process.env[name];
    }
  });
});
