/** Wall time spent per named phase of a scenario, for the report (where a run's minutes go). */
export class PhaseClock {
  private readonly spent = new Map<string, number>();

  /** Runs `work`, adding its wall time to `phase`. */
  time<T>(phase: string, work: () => T): T {
    const started = Date.now();
    const result = work();
    if (result instanceof Promise) {
      return result.finally(() => this.add(phase, started)) as T;
    }
    this.add(phase, started);
    return result;
  }

  /** `phase a / phase b / …` and their seconds, in the order the phases first ran. */
  summary(): { phases: string; seconds: string } {
    return {
      phases: [...this.spent.keys()].join(' / '),
      seconds: [...this.spent.values()].map((ms) => (ms / 1000).toFixed(1)).join(' / '),
    };
  }

  private add(phase: string, started: number): void {
    this.spent.set(phase, (this.spent.get(phase) ?? 0) + Date.now() - started);
  }
}
