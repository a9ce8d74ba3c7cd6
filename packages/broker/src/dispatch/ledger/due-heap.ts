/**
 * (due, offset) pairs in two typed arrays, a binary min-heap by due time: 16 bytes a scheduled message, no object
 * per message (1,000,000 waiting messages are 16 MB, not a million slots).
 */
export class DueHeap {
  private dues = new Float64Array(INITIAL_CAPACITY);
  private offsets = new Float64Array(INITIAL_CAPACITY);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The earliest due time (epoch ms); undefined when empty. */
  peekDue(): number | undefined {
    return this.count > 0 ? this.dues[0] : undefined;
  }

  push(due: number, offset: number): void {
    if (this.count === this.dues.length) this.grow();
    const { dues, offsets } = this;
    let at = this.count++;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!before(due, offset, dues[parent], offsets[parent])) break;
      dues[at] = dues[parent];
      offsets[at] = offsets[parent];
      at = parent;
    }
    dues[at] = due;
    offsets[at] = offset;
  }

  /** Removes the earliest pair and returns its offset. */
  pop(): number | undefined {
    if (this.count === 0) return undefined;
    const { dues, offsets } = this;
    const top = offsets[0];
    const last = --this.count;
    const due = dues[last];
    const offset = offsets[last];
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= last) break;
      const right = left + 1;
      const child = right < last && before(dues[right], offsets[right], dues[left], offsets[left]) ? right : left;
      if (!before(dues[child], offsets[child], due, offset)) break;
      dues[at] = dues[child];
      offsets[at] = offsets[child];
      at = child;
    }
    dues[at] = due;
    offsets[at] = offset;
    return top;
  }

  clear(): void {
    this.count = 0;
    this.dues = new Float64Array(INITIAL_CAPACITY);
    this.offsets = new Float64Array(INITIAL_CAPACITY);
  }

  private grow(): void {
    const dues = new Float64Array(this.dues.length * 2);
    const offsets = new Float64Array(this.offsets.length * 2);
    dues.set(this.dues);
    offsets.set(this.offsets);
    this.dues = dues;
    this.offsets = offsets;
  }
}

const INITIAL_CAPACITY = 16;

/** Earlier due first; the lower offset first within one due time (publish order). */
function before(due: number, offset: number, otherDue: number, otherOffset: number): boolean {
  return due === otherDue ? offset < otherOffset : due < otherDue;
}
