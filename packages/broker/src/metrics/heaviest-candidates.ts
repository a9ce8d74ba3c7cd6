import type { SeriesCandidate } from './series-selection';

/** Heavier first; equal weights by key, so that the choice is the same at every scrape. */
function heavier(a: SeriesCandidate, b: SeriesCandidate): boolean {
  return a.weight > b.weight || (a.weight === b.weight && a.key < b.key);
}

/**
 * The `capacity` heaviest of the candidates offered one by one: a min-heap, so 100,000 offers for 1,000 slots cost
 * about 100,000 × log2(1,000) comparisons, not a sort of every topic.
 */
export class HeaviestCandidates {
  private readonly heap: SeriesCandidate[] = [];

  constructor(private readonly capacity: number) {}

  offer(key: string, weight: number): void {
    const { heap } = this;
    if (this.capacity === 0) return;
    if (heap.length < this.capacity) {
      heap.push({ key, weight });
      this.up(heap.length - 1);
    } else if (weight > heap[0].weight || (weight === heap[0].weight && key < heap[0].key)) {
      // Compared without making a candidate first: most of 100,000 offers are lighter than the lightest kept.
      heap[0] = { key, weight };
      this.down(0);
    }
  }

  /** The candidates kept, heaviest first. */
  sorted(): SeriesCandidate[] {
    return [...this.heap].sort((a, b) => (heavier(a, b) ? -1 : heavier(b, a) ? 1 : 0));
  }

  private up(index: number): void {
    const { heap } = this;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!heavier(heap[parent], heap[index])) break;
      [heap[parent], heap[index]] = [heap[index], heap[parent]];
      index = parent;
    }
  }

  private down(index: number): void {
    const { heap } = this;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let lightest = index;
      if (left < heap.length && heavier(heap[lightest], heap[left])) lightest = left;
      if (right < heap.length && heavier(heap[lightest], heap[right])) lightest = right;
      if (lightest === index) return;
      [heap[lightest], heap[index]] = [heap[index], heap[lightest]];
      index = lightest;
    }
  }
}
