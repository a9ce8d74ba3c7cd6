import type { PublishedMessage } from '@mmmq/core';
import type { PublishableMessage } from '../publish/publish-request.parser';
import { DeduplicationWindow, RememberedId } from './deduplication-window';

/** What a publish found of its ids in their topics' windows; made by {@link Deduplicator.claim}. */
export class DeduplicationClaim {
  /**
   * Per message: undefined when it is to be stored; the original's ACK when its id is known; the index of the
   * first message of the same batch with the same id (which stores it once).
   */
  readonly duplicateOf: Array<PublishedMessage | number | undefined>;
  private readonly reserved: Array<{ index: number; window: DeduplicationWindow; entry: RememberedId }> = [];
  private settle!: () => void;
  /** Settles when this publish's commit does: a concurrent publish of the same id waits for it. */
  readonly settled = new Promise<void>((resolve) => (this.settle = resolve));

  constructor(
    private readonly messages: readonly PublishableMessage[],
    /** Epoch milliseconds the messages are published at. */
    readonly at: number,
  ) {
    this.duplicateOf = new Array<PublishedMessage | number | undefined>(messages.length);
  }

  /** True when at least one message is a duplicate (and is not stored). */
  get hasDuplicates(): boolean {
    return this.duplicateOf.some((duplicate) => duplicate !== undefined);
  }

  /** Decides for the message at `index`: a duplicate of what `window` knows of its id, or stored (its id reserved). */
  decide(index: number, window: DeduplicationWindow): void {
    const { id, topic } = this.messages[index];
    const known = window.lookup(id, this.at);
    if (known === undefined) {
      this.reserved.push({ index, window, entry: window.reserve(id, this.at, this.settled) });
      return;
    }
    window.deduplicated++;
    // Only this publish's own reservations are still pending here: every other one was waited for.
    this.duplicateOf[index] =
      known.settled === undefined
        ? { id, topic: topic.name, offset: known.offset, deliveryMode: 'persistent', duplicate: true }
        : this.reserved.find(({ entry }) => entry === known)!.index;
  }

  /** Fills the ACKs of the duplicates into `acks`, which holds those of the stored messages. */
  fill(acks: PublishedMessage[]): PublishedMessage[] {
    this.duplicateOf.forEach((duplicate, index) => {
      if (duplicate === undefined) return;
      acks[index] = typeof duplicate === 'number' ? { ...acks[duplicate], duplicate: true } : duplicate;
    });
    return acks;
  }

  /** The ACK on receipt of the message at `index` (nonPersistent answered early). */
  accepted(index: number, deliveryMode: 'nonPersistent'): PublishedMessage {
    const duplicate = this.duplicateOf[index];
    if (typeof duplicate === 'object') return duplicate;
    const { id, topic } = this.messages[index];
    return { id, topic: topic.name, deliveryMode, ...(duplicate === undefined ? {} : { duplicate: true as const }) };
  }

  /**
   * The commit is settled: with each message's ACK when stored (its id is remembered with its offset), without when
   * nothing was (its ids are forgotten, so a retry is stored). Call once.
   */
  committed(acks: readonly PublishedMessage[] | undefined): void {
    for (const { index, window, entry } of this.reserved) {
      const offset = acks?.[index].offset;
      if (offset === undefined) window.failed(this.messages[index].id, entry);
      else window.committed(entry, offset);
    }
    this.settle();
  }
}
