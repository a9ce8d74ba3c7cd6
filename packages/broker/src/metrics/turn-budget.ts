import { performance } from 'node:perf_hooks';

/**
 * Milliseconds a scrape may hold the event loop before it lets other work run: a scrape of 100,000 topics takes
 * hundreds of milliseconds of CPU, spread over many turns so that publishes and pushes go on meanwhile.
 */
export const SCRAPE_TURN_BUDGET_MS = 2;
/** Items handled between two clock reads: few, so a turn overruns its budget by a few items at most. */
export const ITEMS_PER_CLOCK_READ = 8;

/**
 * Splits a long walk into turns of the event loop: {@link spend} is awaited once per item and yields (setImmediate,
 * so I/O callbacks run first) once the turn has used {@link SCRAPE_TURN_BUDGET_MS}.
 */
export class TurnBudget {
  private turnStart = performance.now();
  private items = 0;

  constructor(private readonly budgetMs = SCRAPE_TURN_BUDGET_MS) {}

  /** Resolves at once while the turn has time left (no promise is made then), or in a later turn. */
  spend(): Promise<void> | undefined {
    if (++this.items % ITEMS_PER_CLOCK_READ !== 0 || performance.now() - this.turnStart < this.budgetMs) return undefined;
    return this.yield();
  }

  /** Lets the event loop run, then starts a new turn. */
  async yield(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.turnStart = performance.now();
  }
}
