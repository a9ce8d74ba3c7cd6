import { FileHandle, openFailure } from './file-handle';
import type { Journal } from './journal/journal';
import type { CommitPart, Flushable } from './journal/journal-commit';
import { JournalOpKind } from './journal/journal-record';
import { StorageError } from './storage.errors';
import {
  cursorOnly,
  decodeSnapshot,
  encodeSnapshot,
  LEGACY_CHECKPOINT_BYTES,
  snapshotEnd,
  SubscriptionSnapshot,
} from './subscription-snapshot';

/** The largest checkpoint file read back: a snapshot of a full window with every offset counted. */
const MAX_CHECKPOINT_FILE_BYTES = 16 * 1024 * 1024;

/** Whose checkpoint a file is, and the journal that makes its moves durable. */
export interface CheckpointOwner {
  journal: Journal;
  topic: string;
  consumerId: string;
}

/**
 * `checkpoints/{consumerId}.checkpoint`: the subscription's durable state (see {@link SubscriptionSnapshot}) — an
 * 8-byte cursor while there is nothing else to keep, else a checksummed snapshot. A move is durable once the journal record holding it is fsync'd — shared
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
    private current: SubscriptionSnapshot,
    private readonly owner: CheckpointOwner,
  ) {}

  /**
   * Opens the checkpoint, creating it at `initial` when absent (or empty). A new one is written to the page cache
   * only: `created` tells the caller to make `initial` durable, through the journal (see `CheckpointDirectory`). A
   * damaged one restarts at 0 and is rewritten so, durably: redelivering is safe under at-least-once, skipping is
   * not. Damaged means unreadable (wrong size, checksum), or an offset past `logEnd` (the broker never writes one;
   * the true value, say before a bit flip, is unknown). `reset` says why.
   */
  static async open(
    path: string,
    initial: number,
    logEnd: number,
    owner: CheckpointOwner,
  ): Promise<{ checkpoint: CheckpointFile; reset?: string; created: boolean }> {
    const file = await FileHandle.open(path, true);
    try {
      const created = file.size === 0;
      const { stored, reset } = created ? {} : await inspectCheckpoint(file, logEnd);
      const value = stored === undefined ? cursorOnly(reset ? 0 : initial) : stored;
      const checkpoint = new CheckpointFile(file, value, owner);
      checkpoint.dirty = created || reset !== undefined;
      if (reset) await checkpoint.sync();
      else if (created) await checkpoint.writeFile();
      return { checkpoint, reset, created };
    } catch (error) {
      // Not left open: opening is retried (a full disk), and each try would leak a descriptor.
      await file.close().catch(() => undefined);
      throw error;
    }
  }

  /** The cursor: every offset below it is settled. */
  get offset(): number {
    return this.current.cursor;
  }

  get snapshot(): SubscriptionSnapshot {
    return this.current;
  }

  /**
   * Durably records the subscription's state — or just its cursor, the next offset to deliver (journaled).
   * Concurrent calls are applied in call order. `along` parts (a transaction's output messages) go into the same
   * journal record, so they and the state are durable together or not at all; `applied` runs in the turn the record
   * is applied. Resolves with the journal's first offset of each `along` part.
   */
  async write(
    state: number | SubscriptionSnapshot,
    along?: { parts: readonly CommitPart[]; applied(): void },
  ): Promise<Array<number | undefined>> {
    const snapshot = typeof state === 'number' ? cursorOnly(state) : state;
    const { journal, topic, consumerId } = this.owner;
    const op = isCursorOnly(snapshot)
      ? { kind: JournalOpKind.CHECKPOINT as const, topic, consumerId, offset: snapshot.cursor }
      : { kind: JournalOpKind.CHECKPOINT_STATE as const, topic, consumerId, state: encodeSnapshot(snapshot) };
    const apply = () => {
      along?.applied();
      return this.restore(snapshot);
    };
    try {
      return await journal.commit([...(along?.parts ?? []), { op, apply }]);
    } catch (cause) {
      throw new StorageError(`Writing checkpoint ${this.file.path} failed; it still reads ${this.current.cursor}`, { cause });
    }
  }

  /** Sets the state without journaling it: for the journal's own replay, and as the apply step of `write`. */
  restore(state: number | SubscriptionSnapshot): this {
    this.current = typeof state === 'number' ? cursorOnly(state) : state;
    this.dirty = true;
    return this;
  }

  /** Writes the current value to the file and fsyncs it; returns the fsyncs it took. */
  async sync(): Promise<number> {
    if (!this.dirty || this.closed) return 0;
    this.dirty = false;
    try {
      await this.writeFile();
      await this.file.sync();
    } catch (cause) {
      this.dirty = true;
      throw new StorageError(`Writing checkpoint ${this.file.path} failed`, { cause });
    }
    return 1;
  }

  /** Writes the current value to the file (page cache); durable at the next `sync`. */
  private async writeFile(): Promise<void> {
    const bytes = isCursorOnly(this.current) ? legacyBytes(this.current.cursor) : encodeSnapshot(this.current);
    try {
      await this.file.writeAt(bytes, 0);
      if (this.file.size > bytes.length) await this.file.truncate(bytes.length);
    } catch (cause) {
      // Nothing was fsync'd yet: a write refused for space or descriptors can be tried again (the flush retries).
      throw openFailure(`Writing checkpoint ${this.file.path} failed`, cause);
    }
  }

  /**
   * Empties a file just created whose first value could not be made durable, then closes it: an empty file reads as
   * new again, so the next open journals its value instead of trusting one nothing made durable.
   */
  async discard(): Promise<void> {
    this.closed = true;
    await this.file.truncate(0).catch(() => undefined);
    await this.file.close();
  }

  /** Closes the file; a move not yet flushed stays in the journal, which replays it. */
  async close(): Promise<void> {
    this.closed = true;
    await this.file.close();
  }
}

/**
 * Reads a (non-empty) checkpoint file: its state, or why it is damaged and restarts at 0 — unreadable (size,
 * checksum), or an offset past `logEnd`. Reads only; `mmmq verify` reports the same.
 */
export async function inspectCheckpoint(file: FileHandle, logEnd: number): Promise<{ stored?: SubscriptionSnapshot; reset?: string }> {
  if (file.size > MAX_CHECKPOINT_FILE_BYTES) return { reset: `${file.size} bytes, more than a checkpoint can hold` };
  const stored = decodeSnapshot(await file.read(0, file.size));
  if (typeof stored === 'string') return { reset: stored };
  if (snapshotEnd(stored) > logEnd) return { reset: `offset ${snapshotEnd(stored)}, past the log end ${logEnd}` };
  return { stored };
}

/** Nothing to keep but the cursor: written in the 8-byte v1 form (and journaled as a plain CHECKPOINT). */
function isCursorOnly(snapshot: SubscriptionSnapshot): boolean {
  return snapshot.settled.length === 0 && snapshot.counts.length === 0 && snapshot.deliveredMark <= snapshot.cursor;
}

function legacyBytes(cursor: number): Buffer {
  const bytes = Buffer.allocUnsafe(LEGACY_CHECKPOINT_BYTES);
  bytes.writeBigUInt64BE(BigInt(cursor));
  return bytes;
}
