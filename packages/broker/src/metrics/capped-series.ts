import { HeaviestCandidates } from './heaviest-candidates';
import { OtherCounters } from './other-counters';
import { SeriesSelection } from './series-selection';
import { TurnBudget } from './turn-budget';

/** How the items without a series of their own show in a gauge's `__other` series. */
export type OtherAggregate = 'sum' | 'min' | 'max' | 'none';

/** A gauge of a family, and how it is aggregated (`none`: no `__other` series, e.g. offsets, which do not add up). */
export interface CappedGauge<Item> {
  name: string;
  help: string;
  aggregate: OtherAggregate;
  value(item: Item): number;
}

/** A counter of a family, read from the item's totals since the broker started. */
export interface CappedCounter<Item> {
  name: string;
  help: string;
  value(item: Item): number;
}

/** What a family (topics, subscriptions) reads from each of its items. */
export interface CappedFamily<Item> {
  key(item: Item): string;
  labels(item: Item): Record<string, string>;
  /** What decides which items get a free slot first: a topic's backlog, a subscription's lag. */
  weight(item: Item): number;
  gauges: ReadonlyArray<CappedGauge<Item>>;
  counters: ReadonlyArray<CappedCounter<Item>>;
}

/** The values of one item with a series of its own. */
export interface OwnSeries<Item> {
  item: Item;
  labels: Record<string, string>;
  gauges: number[];
  counters: number[];
}

const START: Record<OtherAggregate, number> = { sum: 0, min: Infinity, max: -Infinity, none: 0 };

/**
 * The series of one family at the last scrape, at most `selection.limit` items with their own and the rest summed
 * ({@link other}). {@link refresh} walks every item twice, in turns of the event loop: once to free the slots of
 * deleted items and give them to the heaviest items without one, once to read the values.
 */
export class CappedSeries<Item> {
  own: Array<OwnSeries<Item>> = [];
  /** How many items are summed under `__other` (0: no `__other` series). */
  otherItems = 0;
  otherGauges: number[];
  private readonly otherCounters: OtherCounters;

  constructor(
    readonly family: CappedFamily<Item>,
    readonly selection: SeriesSelection,
    /** Called with the key of an item that lost its series (it was deleted): its measured series are removed. */
    private readonly gone: (key: string) => void,
  ) {
    this.otherGauges = family.gauges.map((gauge) => START[gauge.aggregate]);
    this.otherCounters = new OtherCounters(family.counters.length);
  }

  /** The counters' `__other` totals, in the order of the family's counters. */
  get otherCounterTotals(): readonly number[] {
    return this.otherCounters.totals;
  }

  /**
   * Reads every item, twice: `items` gives a fresh iteration over the live collection each time (never a copy of
   * it: 100,000 topics copied into an array is a turn of its own); items added or removed meanwhile are met or not.
   */
  async refresh(items: () => Iterable<Item>, budget: TurnBudget): Promise<void> {
    await this.select(items(), budget);
    const { family, selection } = this;
    const { gauges, counters } = family;
    const own: Array<OwnSeries<Item>> = [];
    const otherGauges = gauges.map((gauge) => START[gauge.aggregate]);
    // Reused for every item summed under `__other`: most count nothing and keep no copy.
    const counted = new Array<number>(counters.length);
    let otherItems = 0;
    for (const item of items()) {
      const pause = budget.spend();
      if (pause) await pause;
      const key = family.key(item);
      if (selection.has(key)) {
        own.push({
          item,
          labels: family.labels(item),
          gauges: gauges.map((gauge) => gauge.value(item)),
          counters: counters.map((counter) => counter.value(item)),
        });
        continue;
      }
      otherItems++;
      for (let i = 0; i < gauges.length; i++) {
        const value = gauges[i].value(item);
        const aggregate = gauges[i].aggregate;
        if (aggregate === 'sum') otherGauges[i] += value;
        else if (aggregate === 'min') otherGauges[i] = Math.min(otherGauges[i], value);
        else if (aggregate === 'max') otherGauges[i] = Math.max(otherGauges[i], value);
      }
      for (let i = 0; i < counters.length; i++) counted[i] = counters[i].value(item);
      this.otherCounters.add(key, counted);
    }
    this.otherCounters.endScrape();
    this.own = own;
    this.otherItems = otherItems;
    this.otherGauges = otherGauges;
  }

  /** Frees the slots of the items gone and gives the free ones to the heaviest items without one. */
  private async select(items: Iterable<Item>, budget: TurnBudget): Promise<void> {
    const { family, selection } = this;
    const candidates = new HeaviestCandidates(selection.limit);
    selection.beginWalk();
    for (const item of items) {
      const pause = budget.spend();
      if (pause) await pause;
      const key = family.key(item);
      if (!selection.met(key)) candidates.offer(key, family.weight(item));
    }
    for (const key of selection.endWalk()) this.gone(key);
    selection.fill(candidates.sorted());
  }
}
