/**
 * A sorted set of offsets, appended in increasing order (the order a subscription reads its log) and removed from
 * anywhere: one 8-byte number and one flag byte per offset, compacted once half of it is removed. The scheduled
 * messages a subscription's cursor has moved past while they are still unsettled.
 */
export class HeldOffsets {
  private values = new Float64Array(INITIAL_CAPACITY);
  private removed = new Uint8Array(INITIAL_CAPACITY);
  /** Index of the first live value (`end` when none). */
  private head = 0;
  private end = 0;
  private live = 0;
  /** Moves on every change: the ranges of {@link gapsBelow} are cached on it. */
  private version = 0;
  private cached?: { version: number; below: number; from: number; gaps: Array<[number, number]> };

  get size(): number {
    return this.live;
  }

  /** The lowest offset held; undefined when none is. */
  first(): number | undefined {
    return this.head < this.end ? this.values[this.head] : undefined;
  }

  has(offset: number): boolean {
    const at = this.indexOf(offset);
    return at >= 0 && this.removed[at] === 0;
  }

  /** @throws Error when `offset` is not above every offset appended before */
  append(offset: number): void {
    if (this.end > 0 && offset <= this.values[this.end - 1])
      throw new Error(`Held offsets must grow: ${offset} after ${this.values[this.end - 1]}`);
    if (this.end === this.values.length) this.makeRoom();
    this.values[this.end] = offset;
    this.removed[this.end++] = 0;
    this.live++;
    this.version++;
  }

  /** False when it was not held. */
  delete(offset: number): boolean {
    const at = this.indexOf(offset);
    if (at < 0 || this.removed[at] === 1) return false;
    this.removed[at] = 1;
    this.live--;
    this.version++;
    while (this.head < this.end && this.removed[this.head] === 1) this.head++;
    if (this.head === this.end) this.head = this.end = 0;
    return true;
  }

  clear(): void {
    this.values = new Float64Array(INITIAL_CAPACITY);
    this.removed = new Uint8Array(INITIAL_CAPACITY);
    this.head = this.end = this.live = 0;
    this.version++;
    this.cached = undefined;
  }

  /**
   * The offsets in [`from`, `to`) that are not held, as sorted `[first, end)` ranges. The part up to the last held
   * offset below `to` is cached until the set changes: a subscription writes its state every few ms.
   */
  gapsBelow(from: number, to: number): Array<[number, number]> {
    const below = this.countBelow(to);
    let cached = this.cached;
    if (cached?.version !== this.version || cached.below !== below || cached.from !== from) {
      const gaps: Array<[number, number]> = [];
      let next = from;
      for (let at = this.head; at < below; at++) {
        if (this.removed[at] === 1) continue;
        const offset = this.values[at];
        if (offset > next) gaps.push([next, offset]);
        next = offset + 1;
      }
      cached = this.cached = { version: this.version, below, from, gaps };
    }
    const last = below > this.head ? this.lastLiveBefore(below) : undefined;
    const tail = last === undefined ? from : last + 1;
    return tail < to ? [...cached.gaps, [tail, to]] : cached.gaps.slice();
  }

  /** Index of `offset` in the live part, or -1. */
  private indexOf(offset: number): number {
    let low = this.head;
    let high = this.end - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const value = this.values[mid];
      if (value === offset) return mid;
      if (value < offset) low = mid + 1;
      else high = mid - 1;
    }
    return -1;
  }

  /** The index past the last value below `to`. */
  private countBelow(to: number): number {
    let low = this.head;
    let high = this.end;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.values[mid] < to) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private lastLiveBefore(index: number): number | undefined {
    for (let at = index - 1; at >= this.head; at--) if (this.removed[at] === 0) return this.values[at];
    return undefined;
  }

  /** Drops removed values when they are half of the array, else doubles it. */
  private makeRoom(): void {
    const capacity = this.live * 2 >= this.values.length ? this.values.length * 2 : this.values.length;
    const values = new Float64Array(capacity);
    let kept = 0;
    for (let at = this.head; at < this.end; at++) if (this.removed[at] === 0) values[kept++] = this.values[at];
    this.values = values;
    this.removed = new Uint8Array(capacity);
    this.head = 0;
    this.end = kept;
    this.version++;
  }
}

const INITIAL_CAPACITY = 16;
