/** The offset of a remembered id whose message is not committed yet. */
const PENDING = -1;

/** The publish committing a pending id: a concurrent publish of the id waits for it. */
export interface PendingCommit {
  whenSettled(): Promise<void>;
}

/** A producer-given id a topic remembers. */
export interface RememberedId {
  readonly id: string;
  /** Epoch milliseconds the message was published: the id is forgotten once that is older than the window. */
  readonly at: number;
  /** Where the message was stored; {@link PENDING} while its commit is in flight. */
  offset: number;
  /** While the commit is in flight: the publish committing it. */
  pending?: PendingCommit;
}

/** What a topic's de-duplication has done since the broker started, for `GET /mmmq/topics` and metrics. */
export interface DeduplicationStats {
  /** Re-publishes answered with the original ACK, nothing stored. */
  deduplicated: number;
  /** Ids forgotten before their window ended because the topic remembered `maxIds` (the window shrank). */
  evicted: number;
  /** Ids remembered now (at most `maxIds`). */
  remembered: number;
}

/** Entries of {@link DeduplicationWindow}'s order dropped from its head before the array is compacted. */
const COMPACT_AFTER = 1024;

/**
 * The producer-given message ids one topic remembers: where each was stored, for `windowMs` after it was published.
 * `order` holds the committed ones in commit order, so expiring and evicting the oldest is a look at its head, not a
 * scan. (Not the map's own order: V8 iterates a map from the slots its deletions left, so reading its head after many
 * deletions is a scan.) An entry of `order` the map no longer holds (forgotten, or remembered anew) is skipped there.
 * A reservation whose commit is in flight is only in the map: it enters `order` once committed, so a failed one leaves
 * nothing behind (retries of refused publishes cannot grow `order`) and a slow one does not hold up the expiry and
 * eviction of those committed after it. Pending reservations may pass `maxIds` by the number of commits in flight.
 */
export class DeduplicationWindow {
  private readonly ids = new Map<string, RememberedId>();
  private order: RememberedId[] = [];
  private head = 0;
  deduplicated = 0;
  evicted = 0;
  /** False until the ids of the topic's recent messages, read back from its log at open, are remembered. */
  isReady = false;
  ready: Promise<void> = Promise.resolve();

  constructor(
    readonly windowMs: number,
    readonly maxIds: number,
  ) {}

  get stats(): DeduplicationStats {
    return { deduplicated: this.deduplicated, evicted: this.evicted, remembered: this.ids.size };
  }

  /** The id as remembered, unless it is unknown or its window has passed (`now` is epoch milliseconds). */
  lookup(id: string, now: number): RememberedId | undefined {
    const known = this.ids.get(id);
    if (known === undefined || known.pending !== undefined || known.at > now - this.windowMs) return known;
    this.ids.delete(id);
    return undefined;
  }

  /** Remembers an id whose commit is in flight; {@link committed} or {@link failed} tells the outcome. */
  reserve(id: string, at: number, pending: PendingCommit): RememberedId {
    const entry: RememberedId = { id, at, offset: PENDING, pending };
    this.makeRoom(at);
    this.ids.set(id, entry);
    return entry;
  }

  committed(entry: RememberedId, offset: number): void {
    entry.offset = offset;
    entry.pending = undefined;
    if (this.ids.get(entry.id) === entry) this.order.push(entry);
  }

  /** Nothing was stored: the id is forgotten, so a retry is stored. */
  failed(id: string, entry: RememberedId): void {
    if (this.ids.get(id) === entry) this.ids.delete(id);
    entry.pending = undefined;
  }

  /** An id read back from the topic's log (oldest first). */
  restore(id: string, at: number, offset: number): void {
    const entry: RememberedId = { id, at, offset };
    this.makeRoom(at);
    this.ids.set(id, entry);
    this.order.push(entry);
  }

  /** Forgets the committed ids older than the window as of `at`, and the oldest ones while the topic holds `maxIds`. */
  private makeRoom(at: number): void {
    const horizon = at - this.windowMs;
    for (; this.head < this.order.length; this.head++) {
      const oldest = this.order[this.head];
      if (this.ids.get(oldest.id) !== oldest) continue;
      if (oldest.at > horizon && this.ids.size < this.maxIds) break;
      this.ids.delete(oldest.id);
      if (oldest.at > horizon) this.evicted++;
    }
    if (this.head > COMPACT_AFTER && this.head * 2 > this.order.length) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
  }
}
