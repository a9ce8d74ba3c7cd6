import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { descriptorPool } from './descriptor-pool';
import { syncDirectory } from './file-handle';
import { StorageError } from './storage.errors';

/**
 * The file in a topic's directory holding its purge mark. Not under `checkpoints/`: a file there is a consumer's
 * checkpoint, and attaching subscriptions deletes the ones no consumer owns.
 */
export const PURGE_MARK_FILE = 'purged-below';

/**
 * A topic's purge mark: every offset below it is purged — gone for readers (browse, redrive, subscriptions), and
 * retention deletes the segments wholly below it. It only moves forward. Each move rewrites the file atomically
 * (temp file + fsync + rename + directory fsync) before memory changes, so a purge acknowledged survives a crash.
 */
export class PurgeMark {
  private moving: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly path: string,
    private offset: number,
  ) {}

  /** Reads the mark of the topic in `dir`; 0 (nothing purged) when there is no file. */
  static async open(dir: string): Promise<PurgeMark> {
    const path = join(dir, PURGE_MARK_FILE);
    const text = await descriptorPool
      .withDescriptor(() => fs.readFile(path, 'utf8'))
      .catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw new StorageError(`Cannot read the purge mark ${path}`, { cause: error });
      });
    if (text === undefined) return new PurgeMark(path, 0);
    const offset = Number(text.trim());
    // Written whole by a rename, so a bad one was damaged: trusting nothing purged shows too much, never too little.
    return new PurgeMark(path, Number.isSafeInteger(offset) && offset >= 0 ? offset : 0);
  }

  /** Offsets below it are purged. */
  get below(): number {
    return this.offset;
  }

  /** Durably moves the mark to `offset` (never back); resolves with the mark in force. Moves run one at a time. */
  moveTo(offset: number): Promise<number> {
    const run = this.moving.then(async () => {
      if (offset <= this.offset) return this.offset;
      await this.write(offset);
      this.offset = offset;
      return offset;
    });
    this.moving = run.catch(() => undefined);
    return run;
  }

  /**
   * Lowers the mark to `offset` at once, for readers, and durably after: the one move back, for a mark above its
   * topic's recovered tail (acknowledged entries lost to damage), which would otherwise hide every new entry below it.
   * A crash before the write repeats the repair at the next start. Resolves once written.
   */
  lowerTo(offset: number): Promise<void> {
    if (offset >= this.offset) return Promise.resolve();
    this.offset = offset;
    const run = this.moving.then(() => this.write(offset));
    this.moving = run.catch(() => undefined);
    return run;
  }

  private async write(offset: number): Promise<void> {
    const temp = `${this.path}.tmp`;
    try {
      await descriptorPool.withDescriptor(async () => {
        const handle = await fs.open(temp, 'w');
        try {
          await handle.writeFile(`${offset}\n`);
          await handle.sync();
        } finally {
          await handle.close();
        }
      });
      await fs.rename(temp, this.path);
      await syncDirectory(join(this.path, '..'));
    } catch (cause) {
      throw new StorageError(`Cannot write the purge mark ${this.path}`, { cause });
    }
  }
}
