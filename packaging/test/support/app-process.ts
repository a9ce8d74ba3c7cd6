import { ChildProcess, spawn } from 'node:child_process';
import { cleanEnvironment } from './command';

/** A Node process of the fresh application, with its output kept for assertions and failure messages. */
export class AppProcess {
  private output = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child: ChildProcess;

  constructor(
    readonly name: string,
    script: string,
    cwd: string,
    env: Record<string, string> = {},
  ) {
    this.child = spawn(process.execPath, [script], { cwd, env: cleanEnvironment(env), stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer) => (this.output += chunk.toString());
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** The first match of `pattern` in the output; fails when the process exits first or the deadline passes. */
  async waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    void this.exited.then((result) => (exit = result));
    for (;;) {
      const match = pattern.exec(this.output);
      if (match) return match;
      if (exit !== undefined) throw this.failure(`exited (code ${exit.code}, signal ${exit.signal}) before logging ${pattern}`);
      if (Date.now() > deadline) throw this.failure(`did not log ${pattern} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Resolves with the exit code; fails after the deadline. */
  async exitCode(timeoutMs: number): Promise<number | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.failure(`did not exit within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return (await Promise.race([this.exited, timeout])).code;
    } finally {
      clearTimeout(timer);
    }
  }

  log(): string {
    return this.output;
  }

  /** Sends SIGINT, as Ctrl-C in a terminal does. */
  interrupt(): void {
    this.child.kill('SIGINT');
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }

  private failure(problem: string): Error {
    return new Error(`${this.name} ${problem}\n--- ${this.name} output ---\n${this.output}`);
  }
}
