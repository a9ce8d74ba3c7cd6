/** A binary min-heap: O(log n) push and pop, ordered by `before`. */
export class MinHeap<T> {
  private readonly items: T[] = [];

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const { items } = this;
    items.push(item);
    let at = items.length - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.before(items[at], items[parent])) break;
      [items[at], items[parent]] = [items[parent], items[at]];
      at = parent;
    }
  }

  pop(): T | undefined {
    const { items } = this;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  /** Drops every item `keep` refuses, in O(n): for heaps whose items go stale in place and are skipped when popped. */
  retain(keep: (item: T) => boolean): void {
    const { items } = this;
    let kept = 0;
    for (const item of items) if (keep(item)) items[kept++] = item;
    items.length = kept;
    for (let at = (kept >> 1) - 1; at >= 0; at--) this.siftDown(at);
  }

  private siftDown(from: number): void {
    const { items } = this;
    let at = from;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let smallest = at;
      if (left < items.length && this.before(items[left], items[smallest])) smallest = left;
      if (right < items.length && this.before(items[right], items[smallest])) smallest = right;
      if (smallest === at) break;
      [items[at], items[smallest]] = [items[smallest], items[at]];
      at = smallest;
    }
  }
}
