import type { CheckpointFile } from '../storage/checkpoint-file';
import type { DeliveryLedger } from './ledger/delivery-ledger';

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
  /** Settlements since the last durable write started: what a crash now would redeliver. */
  private settledPending = 0;
  private settledInWrite = 0;

  constructor(
    private readonly ledger: DeliveryLedger,
    private readonly checkpoint: CheckpointFile,
    /** Writes a snapshot, retrying failures; false when the subscription stopped first. */
    private readonly write: (checkpoint: CheckpointFile, ledger: DeliveryLedger) => Promise<boolean>,
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

  /** Starts a write if the state changed and none runs. */
  schedule(): void {
    if (!this.writing && this.ledger.version !== this.durableVersion) this.writing = this.run();
  }

  /** Resolves once the state of this moment is durable; false if the subscription stopped first. */
  async durable(): Promise<boolean> {
    const wanted = this.ledger.version;
    while (this.durableVersion < wanted) {
      this.schedule();
      const writing = this.writing;
      if (!writing) return this.durableVersion >= wanted;
      await writing;
      if (this.stopped) return false;
    }
    return true;
  }

  private stopped = false;

  private async run(): Promise<void> {
    try {
      while (this.ledger.version !== this.durableVersion) {
        const version = this.ledger.version;
        const mark = this.ledger.deliveredMark;
        this.settledInWrite = this.settledPending;
        this.settledPending = 0;
        if (!(await this.write(this.checkpoint, this.ledger))) {
          this.stopped = true;
          return;
        }
        this.settledInWrite = 0;
        this.durableVersion = version;
        this.durableMarkValue = mark;
      }
    } finally {
      this.writing = undefined;
    }
  }

  /** Waits for the write under way, if any. */
  async settle(): Promise<void> {
    await this.writing;
  }
}
