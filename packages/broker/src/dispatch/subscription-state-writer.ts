import type { CheckpointFile } from '../storage/checkpoint-file';
import type { DeliveryLedger } from './ledger/delivery-ledger';

/**
 * A change nobody waits for (a push ACK) is written this long after it, so the changes of that moment share one
 * journal record: writing each at once would queue a commit — an fsync — behind every push.
 */
export const STATE_WRITE_DELAY_MS = 10;

/**
 * Makes a subscription's ledger durable in the background: each write takes the newest state (so settlements
 * made during one write share the next), journaled through the checkpoint. `durable()` waits until the state of
 * the moment it was called is on disk — what a pull ack waits for before it is answered.
 */
export class SubscriptionStateWriter {
  /** The ledger version on disk. */
  private durableVersion: number;
  private durableMarkValue: number;
  private writing?: Promise<void>;
  private delayed?: NodeJS.Timeout;
  /** A write found the subscription stopped: nothing more will be written. */
  private stopped = false;
  /** Callers of `durable()` waiting now. */
  private waiters = 0;
  /** {@link writeNow} was asked while a write ran: the next one follows at once. */
  private again = false;
  /** Settlements since the last durable write started: what a crash now would redeliver. */
  private settledPending = 0;
  private settledInWrite = 0;

  constructor(
    private readonly ledger: DeliveryLedger,
    private readonly checkpoint: CheckpointFile,
    /**
     * Writes a snapshot (with the transactions waiting, if any), retrying failures; resolves with the ledger version
     * the state on disk now matches, or false when the subscription stopped first.
     */
    private readonly write: (checkpoint: CheckpointFile, ledger: DeliveryLedger) => Promise<number | false>,
    /** Whether something besides the ledger waits to be written (a transaction). */
    private readonly waiting: () => boolean = () => false,
  ) {
    this.durableVersion = ledger.version;
    this.durableMarkValue = ledger.deliveredMark;
  }

  /** The delivery mark on disk: offsets at or above it were never handed out before this run. */
  get durableMark(): number {
    return this.durableMarkValue;
  }

  /** Settled messages whose settlement is not on disk yet. */
  get undurableSettlements(): number {
    return this.settledPending + this.settledInWrite;
  }

  settled(count = 1): void {
    this.settledPending += count;
    this.schedule();
  }

  /** Has the state written soon ({@link STATE_WRITE_DELAY_MS}) if it changed and no write runs or is due. */
  schedule(): void {
    if (this.writing || this.delayed || !this.changed()) return;
    this.delayed = setTimeout(() => this.writeNow(), STATE_WRITE_DELAY_MS);
    this.delayed.unref();
  }

  /**
   * Starts a write at once if the state changed (or a transaction waits) and none runs; one that runs is followed
   * at once by the next.
   */
  writeNow(): void {
    clearTimeout(this.delayed);
    this.delayed = undefined;
    if (this.writing) this.again = true;
    else if (this.changed()) this.writing = this.run();
  }

  private changed(): boolean {
    return this.ledger.version !== this.durableVersion || this.waiting();
  }

  /** Resolves once the state of this moment is durable; false if the subscription stopped first. */
  async durable(): Promise<boolean> {
    const wanted = this.ledger.version;
    this.waiters++;
    try {
      while (this.durableVersion < wanted) {
        this.writeNow();
        const writing = this.writing;
        if (!writing) return this.durableVersion >= wanted;
        await writing;
        if (this.stopped) return false;
      }
      return true;
    } finally {
      this.waiters--;
    }
  }

  /**
   * One write of the newest state. What changed meanwhile is written next: at once if someone waits for it, else
   * after the delay, so a steady stream of ACKs becomes a write every few ms instead of one after another.
   */
  private async run(): Promise<void> {
    try {
      this.again = false;
      const mark = this.ledger.deliveredMark;
      this.settledInWrite = this.settledPending;
      this.settledPending = 0;
      const version = await this.write(this.checkpoint, this.ledger);
      if (version === false) {
        this.stopped = true;
        return;
      }
      this.settledInWrite = 0;
      this.durableVersion = Math.max(this.durableVersion, version);
      this.durableMarkValue = mark;
    } finally {
      this.writing = undefined;
      if (!this.stopped && (this.waiters > 0 || this.again || this.waiting())) this.writeNow();
      else if (!this.stopped) this.schedule();
    }
  }
}
