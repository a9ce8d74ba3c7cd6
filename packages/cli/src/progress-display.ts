import { Presets, SingleBar } from 'cli-progress';
import type { CliIo } from './cli-io';

/** Plain progress lines at most this often when stderr is not a terminal (a CI log should not fill up). */
export const PLAIN_PROGRESS_INTERVAL_MS = 1000;

/**
 * Progress on stderr: a live cli-progress bar on a terminal, else a plain line now and then, so piped stdout
 * (`--json`) stays clean.
 */
export class ProgressDisplay {
  private readonly bar?: SingleBar;
  private lastLine = 0;
  /** The latest state not yet written as a plain line. */
  private pending?: string;

  constructor(
    private readonly io: CliIo,
    private readonly label: string,
    total: number,
  ) {
    if (io.stderr.isTTY) {
      this.bar = new SingleBar(
        {
          format: `${label} [{bar}] {percentage}% | {value}/{total} | {detail}`,
          stream: io.stderr as NodeJS.WritableStream,
          hideCursor: true,
        },
        Presets.shades_classic,
      );
      this.bar.start(total, 0, { detail: '' });
    }
  }

  update(value: number, payload: Record<string, string | number>): void {
    const detail = Object.entries(payload)
      .map(([key, item]) => `${key} ${item}`)
      .join(', ');
    if (this.bar) return this.bar.update(value, { detail });
    this.pending = `${this.label}: ${value}, ${detail}\n`;
    if (Date.now() - this.lastLine < PLAIN_PROGRESS_INTERVAL_MS) return;
    this.lastLine = Date.now();
    this.io.stderr.write(this.pending);
    this.pending = undefined;
  }

  /** Ends the bar; without one, writes the final state if the last update was not written. */
  stop(): void {
    this.bar?.stop();
    if (this.pending) this.io.stderr.write(this.pending);
    this.pending = undefined;
  }
}
