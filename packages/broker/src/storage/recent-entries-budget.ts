/**
 * Bytes of recent payloads all topics together keep in memory (each topic also has its own cap): `memory.recentEntriesBytes`.
 * 64 MiB: 8 topics at their own cap, or the last 64,000 messages of 1 KiB, enough for consumers that keep up to
 * read from memory (docs/performance.md#memory); more only makes the broker's RSS higher.
 */
export const DEFAULT_RECENT_ENTRIES_TOTAL_BYTES = 64 * 1024 * 1024;

/** What the budget can take memory back from: a topic's run of recent entries. */
export interface RecentEntriesHolder {
  /** Drops every entry held; returns the bytes freed. */
  release(): number;
}

/**
 * One broker's memory for recent entries, shared by its topics. A topic that was just written moves to the
 * back; when the total passes the cap, the topics written least recently give up their entries first (their
 * consumers read from disk, as they would after a restart), so an active topic keeps its own.
 */
export class RecentEntriesBudget {
  private total = 0;
  /** Holders in the order they were last written, least recent first. */
  private readonly holders = new Map<RecentEntriesHolder, number>();

  constructor(
    readonly maxBytes: number = DEFAULT_RECENT_ENTRIES_TOTAL_BYTES,
    /** Each topic's own cap (`memory.topicRecentEntriesBytes`); undefined: RecentEntries' default. */
    readonly topicMaxBytes?: number,
  ) {}

  /** Bytes held by all topics together. */
  get bytes(): number {
    return this.total;
  }

  /** `holder` now holds `bytes` and was just written; others are released while the total is over the cap. */
  update(holder: RecentEntriesHolder, bytes: number): void {
    this.total += bytes - (this.holders.get(holder) ?? 0);
    this.holders.delete(holder);
    this.holders.set(holder, bytes);
    for (const [other, held] of this.holders) {
      if (this.total <= this.maxBytes || other === holder) break;
      if (held > 0) this.total -= other.release();
      this.holders.set(other, 0);
    }
  }

  /** The holder is gone (its topic closed). */
  forget(holder: RecentEntriesHolder): void {
    this.total -= this.holders.get(holder) ?? 0;
    this.holders.delete(holder);
  }
}
