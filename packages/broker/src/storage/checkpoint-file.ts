import { FileHandle } from './file-handle';
import type { Journal } from './journal/journal';
import type { Flushable } from './journal/journal-commit';
import { JournalOpKind } from './journal/journal-record';
import { StorageError } from './storage.errors';

/** A checkpoint is one 8-byte big-endian integer: the next offset to deliver. */
export const CHECKPOINT_BYTES = 8;

/** Whose checkpoint a file is, and the journal that makes its moves durable. */
export interface CheckpointOwner {
  journal: Journal;
  topic: string;
  consumerId: string;
}

/**
 * `checkpoints/{consumerId}.checkpoint`. A move is durable once the journal record holding it is fsync'd — shared
 * with every publish and checkpoint of that commit group, so its cost does not grow with the number of
 * subscriptions; the value only moves then, so a crash can make a consumer see a message again but never skip
 * one. The file itself is written and fsync'd by the journal's flush, with the value of that moment.
 */
export class CheckpointFile implements Flushable {
  /** Moved since the file was last written. */
  private dirty = false;
  private closed = false;

  private constructor(
    private readonly file: FileHandle,
    private current: number,
    private readonly owner: CheckpointOwner,
  ) {}

  /**
   * Opens the checkpoint, creating it at `initial` when absent. A damaged one restarts at 0 and is rewritten so:
   * redelivering is safe under at-least-once, skipping is not. Damaged means the wrong size, or an offset past
   * `logEnd` (the broker never writes one; the true value, say before a bit flip, is unknown). `reset` says why.
   */
  static async open(
    path: string,
    initial: number,
    logEnd: number,
    owner: CheckpointOwner,
  ): Promise<{ checkpoint: CheckpointFile; reset?: string }> {
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
      const checkpoint = new CheckpointFile(file, value, owner);
      if (created || reset) {
        if (file.size > CHECKPOINT_BYTES) await file.truncate(0);
        checkpoint.dirty = true;
        await checkpoint.sync();
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

  /** Durably records `offset` as the next one to deliver (journaled). Concurrent calls are applied in call order. */
  async write(offset: number): Promise<void> {
    const { journal, topic, consumerId } = this.owner;
    try {
      await journal.commit([{ op: { kind: JournalOpKind.CHECKPOINT, topic, consumerId, offset }, apply: () => this.restore(offset) }]);
    } catch (cause) {
      throw new StorageError(`Writing checkpoint ${this.file.path} failed; it still reads ${this.current}`, { cause });
    }
  }

  /** Moves the value without journaling it: for the journal's own replay, and as the apply step of `write`. */
  restore(offset: number): this {
    this.current = offset;
    this.dirty = true;
    return this;
  }

  /** Writes the current value to the file and fsyncs it; returns the fsyncs it took. */
  async sync(): Promise<number> {
    if (!this.dirty || this.closed) return 0;
    this.dirty = false;
    const bytes = Buffer.allocUnsafe(CHECKPOINT_BYTES);
    bytes.writeBigUInt64BE(BigInt(this.current));
    try {
      await this.file.writeAt(bytes, 0);
      await this.file.sync();
    } catch (cause) {
      this.dirty = true;
      throw new StorageError(`Writing checkpoint ${this.file.path} failed`, { cause });
    }
    return 1;
  }

  /** Closes the file; a move not yet flushed stays in the journal, which replays it. */
  async close(): Promise<void> {
    this.closed = true;
    await this.file.close();
  }
}
