import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { BACKLOG_LIMIT_REASON, BacklogLimit } from './backlog-limit';
import type { DeliveryLedger } from './ledger/delivery-ledger';
import { MAX_WINDOW } from './ledger/log-reader';
import type { Slot } from './ledger/slot';

/** Messages dead-lettered for a backlog limit in one step, at most: the rest wait for the next step. */
export const BACKLOG_DEAD_LETTER_STEP = 1000;
/** Drops are logged at most this often per subscription, with the count since the last line. */
export const BACKLOG_DROP_LOG_INTERVAL_MS = 10_000;

/** What the trimmer needs from its subscription. */
export interface BacklogTrimmerHost {
  stopped(): boolean;
  /** The topic's tail: the offset the next message gets. */
  tailOffset(): number;
  label(): string;
  /** Reads the log into the ledger until about `max` messages are available (or the window is full). */
  fill(max: number): Promise<void>;
  /** Dead-letters a DEAD_LETTERING slot and settles it once that is durable; false: stopped first. */
  deadLetter(slot: Slot, reason: string, lastError: string): Promise<boolean>;
  /** `count` messages were dropped (settled without delivery). */
  dropped(count: number): void;
}

/**
 * Keeps a subscription's backlog within `maxBacklog` for `dropOldest` and `deadLetter` (`reject` is the
 * BacklogGuard's): when the topic's tail passes `cursor + maxBacklog`, the oldest messages nobody holds give way —
 * settled unread, or dead-lettered (then the cursor passes each once its dead letter is durable). Runs one trim at
 * a time; a check during one runs it again after.
 */
export class BacklogTrimmer {
  private readonly logger = new Logger(BacklogTrimmer.name);
  private running = false;
  private again = false;
  private unlogged = 0;
  private loggedAt = -Infinity;
  /**
   * Read messages below it were looked at by an earlier step and were held then: the next step starts there, so a
   * lease holding the cursor does not make every publish look at the whole window again. A release starts over.
   */
  private scannedTo = 0;

  constructor(
    private readonly limit: BacklogLimit,
    private readonly ledger: DeliveryLedger,
    private readonly host: BacklogTrimmerHost,
  ) {}

  /** A held message came back (a failed push, a NACK, an expired lease): it may have to give way now. */
  released(): void {
    this.scannedTo = 0;
  }

  /** Cheap when within the limit: call it whenever the topic grows or the cursor moves. */
  check(): void {
    if (!this.over()) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.run().finally(() => (this.running = false));
  }

  private over(): boolean {
    return this.host.tailOffset() - this.ledger.cursor > this.limit.maxBacklog;
  }

  private async run(): Promise<void> {
    do {
      this.again = false;
      while (this.over() && !this.host.stopped() && (await this.step())) {
        // Each step frees some of the window; go on while one makes progress.
      }
    } while (this.again && !this.host.stopped());
  }

  /** One bounded step; false when it could drop nothing (what is left is held by members). */
  private async step(): Promise<boolean> {
    const below = this.host.tailOffset() - this.limit.maxBacklog;
    if (this.limit.overflow === 'dropOldest') {
      const dropped = this.ledger.dropBefore(below, this.scannedTo);
      this.scannedTo = below;
      this.count(dropped);
      return false;
    }
    await this.host.fill(Math.min(below - this.ledger.cursor, MAX_WINDOW));
    const slots = this.ledger.deadLetterBefore(below, BACKLOG_DEAD_LETTER_STEP, this.scannedTo);
    this.scannedTo = slots.length === BACKLOG_DEAD_LETTER_STEP ? slots[slots.length - 1].offset + 1 : Math.min(below, this.ledger.readEnd);
    if (slots.length === 0) return false;
    const lastError = `the backlog passed maxBacklog ${this.limit.maxBacklog} (backlogOverflow "deadLetter")`;
    const done = await Promise.all(slots.map((slot) => this.host.deadLetter(slot, BACKLOG_LIMIT_REASON, lastError)));
    this.count(done.filter(Boolean).length);
    return done.every(Boolean);
  }

  private count(dropped: number): void {
    if (dropped === 0) return;
    this.host.dropped(dropped);
    this.unlogged += dropped;
    this.log();
  }

  /**
   * One line per interval, not one per message (a limit that is always reached would flood the log): the first
   * drop at once, then the count since the last line. The exact count is the subscription's `backlogDropped`.
   */
  private log(): void {
    const now = performance.now();
    if (now - this.loggedAt < BACKLOG_DROP_LOG_INTERVAL_MS) return;
    const what = this.limit.overflow === 'dropOldest' ? 'dropped' : 'dead-lettered';
    this.logger.warn(
      `${this.host.label()}: ${what} ${this.unlogged} oldest messages to keep the backlog within maxBacklog ${this.limit.maxBacklog}`,
    );
    this.unlogged = 0;
    this.loggedAt = now;
  }
}
