import { RecentEntriesBudget, RecentEntriesHolder } from './recent-entries-budget';

/** Bytes of the newest payloads each topic keeps in memory, so consumers that keep up never touch the disk. */
export const DEFAULT_RECENT_ENTRIES_BYTES = 8 * 1024 * 1024;

/**
 * The newest committed payloads of one topic: a contiguous run of offsets ending at the tail, trimmed from
 * the oldest end to stay within a byte budget, and given up entirely when the broker-wide budget needs the
 * memory for topics written more recently.
 */
export class RecentEntries implements RecentEntriesHolder {
  private payloads: Buffer[] = [];
  private head = 0;
  /** Offset of `payloads[head]`. */
  private first = 0;
  private bytes = 0;

  constructor(
    tailOffset: number,
    private readonly maxBytes: number = DEFAULT_RECENT_ENTRIES_BYTES,
    private readonly budget?: RecentEntriesBudget,
  ) {
    this.first = tailOffset;
  }

  /** The oldest offset held; everything from here to the tail is in memory. */
  get start(): number {
    return this.first;
  }

  /** One past the newest offset held. */
  get end(): number {
    return this.first + this.payloads.length - this.head;
  }

  /** Records payloads just committed at `offset`…; they must continue the run. */
  append(offset: number, payloads: readonly Buffer[]): void {
    if (offset !== this.end) this.clear(offset);
    for (const payload of payloads) {
      this.payloads.push(payload);
      this.bytes += payload.length;
    }
    while (this.bytes > this.maxBytes && this.head < this.payloads.length) {
      this.bytes -= this.payloads[this.head++].length;
      this.first++;
    }
    // Compact now and then instead of shifting the array on every eviction.
    if (this.head > 1024 && this.head * 2 > this.payloads.length) {
      this.payloads = this.payloads.slice(this.head);
      this.head = 0;
    }
    this.budget?.update(this, this.bytes);
  }

  release(): number {
    const freed = this.bytes;
    this.clear(this.end);
    return freed;
  }

  /** Gives the memory back to the broker-wide budget for good (the topic closed). */
  close(): void {
    this.clear(this.end);
    this.budget?.forget(this);
  }

  get(offset: number): Buffer | undefined {
    return offset >= this.first && offset < this.end ? this.payloads[this.head + offset - this.first] : undefined;
  }

  private clear(offset: number): void {
    this.payloads = [];
    this.head = 0;
    this.first = offset;
    this.bytes = 0;
  }
}
