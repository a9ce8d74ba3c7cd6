import { FileHandle } from './file-handle';
import { StorageError } from './storage.errors';

/** A checkpoint is one 8-byte big-endian integer: the next offset to deliver. */
export const CHECKPOINT_BYTES = 8;

/**
 * `checkpoints/{consumerId}.checkpoint`. Writes are serialised and fsync'd; the value only moves once the write
 * is durable, so a crash can make a consumer see a message again but never skip one.
 */
export class CheckpointFile {
  private pending: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: FileHandle,
    private current: number,
  ) {}

  /**
   * Opens the checkpoint, creating it at `initial` when absent. A damaged one restarts at 0 and is rewritten so:
   * redelivering is safe under at-least-once, skipping is not. Damaged means the wrong size, or an offset past
   * `logEnd` (the broker never writes one; the true value, say before a bit flip, is unknown). `reset` says why.
   */
  static async open(path: string, initial: number, logEnd: number): Promise<{ checkpoint: CheckpointFile; reset?: string }> {
    const file = await FileHandle.open(path, true);
    try {
      const created = file.size === 0;
      const stored = file.size === CHECKPOINT_BYTES ? (await file.read(0, CHECKPOINT_BYTES)).readBigUInt64BE(0) : undefined;
      const reset = created
        ? undefined
        : stored === undefined
          ? `${file.size} bytes instead of ${CHECKPOINT_BYTES}`
          : stored > BigInt(logEnd)
            ? `offset ${stored}, past the log end ${logEnd}`
            : undefined;
      const value = created ? initial : reset ? 0 : Number(stored);
      const checkpoint = new CheckpointFile(file, value);
      if (created || reset) {
        if (file.size > CHECKPOINT_BYTES) await file.truncate(0);
        await checkpoint.write(value);
      }
      return { checkpoint, reset };
    } catch (error) {
      // Not left open: opening is retried (a full disk), and each try would leak a descriptor.
      await file.close().catch(() => undefined);
      throw error;
    }
  }

  get offset(): number {
    return this.current;
  }

  /** Durably records `offset` as the next one to deliver. Concurrent calls are applied in call order. */
  write(offset: number): Promise<void> {
    const run = this.pending.then(async () => {
      const bytes = Buffer.allocUnsafe(CHECKPOINT_BYTES);
      bytes.writeBigUInt64BE(BigInt(offset));
      try {
        await this.file.writeAt(bytes, 0);
        await this.file.sync();
      } catch (cause) {
        throw new StorageError(`Writing checkpoint ${this.file.path} failed; it still reads ${this.current}`, {
          cause,
        });
      }
      this.current = offset;
    });
    this.pending = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    await this.pending;
    await this.file.close();
  }
}
