import type { PublishedMessage } from '@mmmq/core';
import type { PublishableMessage } from '../format/publishable-message';
import { DeduplicationWindow, RememberedId } from './deduplication-window';

/**
 * What a publish found of its ids in their topics' windows, and the ids it reserved until its commit settles; made by
 * {@link Deduplicator.claim}. Allocates only what a publish needs: no promise unless a concurrent publish of one of
 * its ids waits for it, no duplicate list unless one of its messages is a duplicate.
 */
export class DeduplicationClaim {
  /**
   * Per message, once there is a duplicate: undefined when it is to be stored; the original's ACK when its id is
   * known; the index of the first message of the same batch with the same id (which stores it once).
   */
  private duplicates?: Array<PublishedMessage | number | undefined>;
  private readonly reserved: Array<{ index: number; window: DeduplicationWindow; entry: RememberedId }> = [];
  private done = false;
  private settled?: { promise: Promise<void>; resolve: () => void };

  constructor(
    private readonly messages: readonly PublishableMessage[],
    /** Epoch milliseconds the messages are published at. */
    readonly at: number,
  ) {}

  /** Resolves when this publish's commit settles, either way: a concurrent publish of one of its ids waits for it. */
  whenSettled(): Promise<void> {
    if (this.done) return Promise.resolve();
    if (!this.settled) {
      let resolve!: () => void;
      const promise = new Promise<void>((done) => (resolve = done));
      this.settled = { promise, resolve };
    }
    return this.settled.promise;
  }

  /** True when the message at `index` is a duplicate: it is not stored. */
  isDuplicate(index: number): boolean {
    return this.duplicates?.[index] !== undefined;
  }

  /** Decides for the message at `index`: a duplicate of what `window` knows of its id, or stored (its id reserved). */
  decide(index: number, window: DeduplicationWindow): void {
    const { id, topic } = this.messages[index];
    const known = window.lookup(id, this.at);
    if (known === undefined) {
      this.reserved.push({ index, window, entry: window.reserve(id, this.at, this) });
      return;
    }
    window.deduplicated++;
    this.duplicates ??= new Array<PublishedMessage | number | undefined>(this.messages.length);
    // Only this publish's own reservations are still pending here: every other one was waited for.
    this.duplicates[index] =
      known.pending === undefined
        ? { id, topic: topic.name, offset: known.offset, deliveryMode: 'persistent', duplicate: true }
        : this.reserved.find(({ entry }) => entry === known)!.index;
  }

  /** Fills the ACKs of the duplicates into `acks`, which holds those of the stored messages. */
  fill(acks: PublishedMessage[]): PublishedMessage[] {
    this.duplicates?.forEach((duplicate, index) => {
      if (duplicate === undefined) return;
      acks[index] = typeof duplicate === 'number' ? { ...acks[duplicate], duplicate: true } : duplicate;
    });
    return acks;
  }

  /** The ACK on receipt of the message at `index` (nonPersistent answered early); undefined when not a duplicate. */
  accepted(index: number, deliveryMode: 'nonPersistent'): PublishedMessage | undefined {
    const duplicate = this.duplicates?.[index];
    if (duplicate === undefined || typeof duplicate === 'object') return duplicate;
    const { id, topic } = this.messages[index];
    return { id, topic: topic.name, deliveryMode, duplicate: true };
  }

  /**
   * The commit is settled: with each message's ACK when stored (its id is remembered with its offset), without when
   * nothing was (its ids are forgotten, so a retry is stored). Only the first call counts.
   */
  committed(acks: readonly PublishedMessage[] | undefined): void {
    if (this.done) return;
    this.done = true;
    for (const { index, window, entry } of this.reserved) {
      const offset = acks?.[index].offset;
      if (offset === undefined) window.failed(this.messages[index].id, entry);
      else window.committed(entry, offset);
    }
    this.settled?.resolve();
  }
}
