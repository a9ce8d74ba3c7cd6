import { promises as fsp, statSync } from 'node:fs';
import { FileHandle } from '../../src/storage/file-handle';
import { listFiles } from './crash-copy';

/** Does the intercepted write: the whole buffer by default, or `bytes` at `position` (part of it, say). */
export type ProceedWrite = (bytes?: Buffer, position?: number) => Promise<void>;
/** Takes over a FileHandle.writeAt call by returning a promise, or lets it through by returning undefined. */
export type WriteHook = (path: string, bytes: Buffer, position: number, proceed: ProceedWrite) => Promise<void> | undefined;
/** Takes over a FileHandle.sync (or an fs.promises.rm) call by returning a promise, or returns undefined. */
export type CallHook = (path: string, proceed: () => Promise<void>) => Promise<void> | undefined;

/**
 * One set of spies on the storage layer's I/O — FileHandle.writeAt, FileHandle.sync and fs.promises.rm — so a test
 * can stop the world at a precise point (a hook runs synchronously inside the call) or make a call fail. It also
 * records, for every file, its size when its last completed fsync began: what a power loss cannot take away.
 */
export class IoSpy {
  /** Path → bytes of the file covered by its last completed fsync. Files never fsync'd are absent (0). */
  readonly durableSizes = new Map<string, number>();
  /** Every FileHandle.sync call, in order, by path. */
  readonly syncs: string[] = [];
  private readonly writeHooks: WriteHook[] = [];
  private readonly syncHooks: CallHook[] = [];
  private readonly rmHooks: CallHook[] = [];

  private constructor() {}

  /** Installs the spies (jest.restoreAllMocks removes them). */
  static install(): IoSpy {
    const spy = new IoSpy();
    const writeAt = FileHandle.prototype.writeAt;
    const sync = FileHandle.prototype.sync;
    const rm = fsp.rm;
    jest.spyOn(FileHandle.prototype, 'writeAt').mockImplementation(function (this: FileHandle, bytes: Buffer, position: number) {
      const proceed: ProceedWrite = (part = bytes, at = position) => writeAt.call(this, part, at);
      for (const hook of [...spy.writeHooks]) {
        const handled = hook(this.path, bytes, position, proceed);
        if (handled) return handled;
      }
      return proceed();
    });
    jest.spyOn(FileHandle.prototype, 'sync').mockImplementation(function (this: FileHandle) {
      const path = this.path;
      spy.syncs.push(path);
      const proceed = async () => {
        // A file deleted while open (its fsync still succeeds) has no size: a crash takes it away whole.
        const size = fileSize(path);
        await sync.call(this);
        if (size !== undefined) spy.durableSizes.set(path, size);
      };
      for (const hook of [...spy.syncHooks]) {
        const handled = hook(path, proceed);
        if (handled) return handled;
      }
      return proceed();
    });
    jest.spyOn(fsp, 'rm').mockImplementation((path, options) => {
      const proceed = () => rm(path, options);
      for (const hook of [...spy.rmHooks]) {
        const handled = hook(String(path), proceed);
        if (handled) return handled;
      }
      return proceed();
    });
    // A covered journal file the journal recycles is renamed away instead of removed: the same moment for a crash.
    const rename = fsp.rename;
    jest.spyOn(fsp, 'rename').mockImplementation((from, to) => {
      const proceed = () => rename(from, to);
      if (!String(from).endsWith('.journal')) return proceed();
      for (const hook of [...spy.rmHooks]) {
        const handled = hook(String(from), proceed);
        if (handled) return handled;
      }
      return proceed();
    });
    return spy;
  }

  /** Counts every file under `dir` durable at its present size: a disk the broker boots from was all written. */
  markDurable(dir: string): void {
    for (const path of listFiles(dir)) this.durableSizes.set(path, statSync(path).size);
  }

  /** Adds a write hook; returns its removal. */
  onWrite(hook: WriteHook): () => void {
    return register(this.writeHooks, hook);
  }

  onSync(hook: CallHook): () => void {
    return register(this.syncHooks, hook);
  }

  /** Hooks fs.promises.rm, and fs.promises.rename of a journal file (the journal recycles it instead of removing). */
  onRm(hook: CallHook): () => void {
    return register(this.rmHooks, hook);
  }
}

function fileSize(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}

function register<H>(hooks: H[], hook: H): () => void {
  hooks.push(hook);
  return () => {
    const at = hooks.indexOf(hook);
    if (at >= 0) hooks.splice(at, 1);
  };
}

/** An I/O error as the kernel reports it. */
export function ioError(code: 'EIO' | 'ENOSPC', call: string): NodeJS.ErrnoException {
  const text = code === 'EIO' ? 'i/o error' : 'no space left on device';
  return Object.assign(new Error(`${code}: ${text}, ${call}`), { code });
}
