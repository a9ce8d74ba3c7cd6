import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Random } from '../random';
import { describeMachine, FAULT_DIR, Figure, saveScenarioReport, ScenarioReport } from '../report/scenario-report';
import { faultSeed, faultTier, FaultTier, tierSizes, TierSizes } from '../tier';

/** Where the work directory of a failed scenario is kept (data files, broker logs) for a post-mortem. */
export const ARTIFACTS_DIR = join(FAULT_DIR, 'artifacts');

/**
 * One scenario's run: its seed and random source, a scratch directory, the figures it reports, and its
 * requirements. A requirement that does not hold throws (the test fails) with the first problems found, the
 * seed to replay it, and where the files were kept.
 */
export class ScenarioRun {
  readonly tier: FaultTier = faultTier();
  readonly sizes: TierSizes = tierSizes(this.tier);
  readonly seed = faultSeed();
  readonly random: Random;
  readonly workDir: string;
  private readonly started = Date.now();
  private readonly figures: Figure[] = [];
  private readonly notes: string[] = [];
  private readonly failures: string[] = [];

  constructor(
    readonly scenario: string,
    private readonly order: number,
    private readonly title: string,
  ) {
    this.random = new Random(this.seed).fork(scenario);
    this.workDir = mkdtempSync(join(tmpdir(), `mmmq-fault-${scenario}-`));
  }

  figure(label: string, value: number | string, required?: number): void {
    const existing = this.figures.find((figure) => figure.label === label);
    if (existing) existing.value = value;
    else this.figures.push({ label, value, required });
  }

  note(text: string): void {
    this.notes.push(text);
  }

  /** Throws unless every count is 0. */
  expectZero(where: string, counts: Record<string, number>, problems: readonly string[] = []): void {
    const bad = Object.entries(counts).filter(([, value]) => value !== 0);
    if (bad.length === 0) return;
    this.failWith(`${where}: ${bad.map(([name, value]) => `${name} = ${value}`).join(', ')} (each must be 0)`, problems);
  }

  /** Throws with `message` unless `condition` holds. */
  expectThat(condition: boolean, message: string, problems: readonly string[] = []): void {
    if (!condition) this.failWith(message, problems);
  }

  /** Every figure with a requirement must meet it. */
  expectFiguresMet(): void {
    const unmet = this.figures.filter((figure) => figure.required !== undefined && figure.value !== figure.required);
    if (unmet.length === 0) return;
    this.failWith(unmet.map((figure) => `${figure.label} = ${figure.value} (must be ${figure.required})`).join('; '), []);
  }

  /** Records the failure for the report and keeps the work directory. */
  failWith(message: string, problems: readonly string[]): never {
    const kept = join(ARTIFACTS_DIR, `${this.scenario}-seed${this.seed}`);
    const text =
      `${message}\n` +
      problems.map((problem) => `  - ${problem}`).join('\n') +
      `\n  (replay: MMMQ_FAULT_SEED=${this.seed} MMMQ_FAULT_TIER=${this.tier}; files and broker logs kept in ${kept})`;
    const summary = problems.length > 0 ? `${message}: ${problems.slice(0, 3).join('; ')}` : message;
    if (!this.failures.includes(summary)) this.failures.push(summary.slice(0, 1200));
    throw new Error(text);
  }

  /** Saves the report; removes the work directory unless the run failed (then it is copied to artifacts). */
  finish(error?: unknown): void {
    if (error !== undefined && this.failures.length === 0) this.failures.push(String((error as Error)?.message ?? error).split('\n')[0]);
    const report: ScenarioReport = {
      scenario: this.scenario,
      order: this.order,
      title: this.title,
      tier: this.tier,
      seed: this.seed,
      date: new Date(this.started).toISOString(),
      durationMs: Date.now() - this.started,
      machine: describeMachine(),
      figures: this.figures,
      notes: this.notes,
      failures: this.failures,
    };
    saveScenarioReport(report);
    if (this.failures.length > 0) {
      const kept = join(ARTIFACTS_DIR, `${this.scenario}-seed${this.seed}`);
      rmSync(kept, { recursive: true, force: true });
      cpSync(this.workDir, kept, { recursive: true });
    }
    rmSync(this.workDir, { recursive: true, force: true });
  }
}
