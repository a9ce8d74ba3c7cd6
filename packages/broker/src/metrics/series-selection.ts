/** The label value under which the topics (or subscriptions) beyond the cap are summed. */
export const OTHER_SERIES = '__other';

/** An item offered for a free series slot, and how much it matters (a topic's backlog, a subscription's lag). */
export interface SeriesCandidate {
  key: string;
  weight: number;
}

/**
 * Which topics (or subscriptions, by {@link subscriptionKey}) get series of their own: at most `limit`, the others
 * are summed under {@link OTHER_SERIES}. Sticky: an item keeps its series until it no longer exists, so its counters
 * and histograms only grow and Prometheus sees no churn. A free slot goes to the first item measured while one is
 * free ({@link admit}, on the publish and push paths), and at a scrape to the heaviest items without one
 * ({@link fill}).
 */
export class SeriesSelection {
  /** The items with a series, each with the last walk that met it (or admitted it meanwhile). */
  private readonly selected = new Map<string, number>();
  private walk = 0;

  constructor(readonly limit: number) {}

  has(key: string): boolean {
    return this.selected.has(key);
  }

  get size(): number {
    return this.selected.size;
  }

  /** Gives `key` a series if a slot is free; true when it has one. */
  admit(key: string): boolean {
    if (this.selected.has(key)) return true;
    if (this.selected.size >= this.limit) return false;
    // Admitted during a walk, it exists even if the walk passed it already.
    this.selected.set(key, this.walk);
    return true;
  }

  /** Starts a walk over every existing item: {@link met} for each, then {@link endWalk}. */
  beginWalk(): void {
    this.walk++;
  }

  /** The walk met `key`; true when it has a series. */
  met(key: string): boolean {
    if (!this.selected.has(key)) return false;
    this.selected.set(key, this.walk);
    return true;
  }

  /** Frees the slots of the items the walk did not meet (gone), returns them: their series are to be removed. */
  endWalk(): string[] {
    const gone = [...this.selected].filter(([, walk]) => walk !== this.walk).map(([key]) => key);
    for (const key of gone) this.selected.delete(key);
    return gone;
  }

  /** Gives the free slots to `heaviest`, in that order (heaviest first). */
  fill(heaviest: readonly SeriesCandidate[]): void {
    for (const { key } of heaviest) if (!this.admit(key)) break;
  }
}

/** One key per subscription: topic names and consumer ids contain no NUL. */
export function subscriptionKey(topic: string, consumerId: string): string {
  return `${topic}\0${consumerId}`;
}
