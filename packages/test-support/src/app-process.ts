import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

const REPOSITORY_ROOT = resolve(__dirname, '../../..');
/** Generous: a busy two-core machine may take a while to load Nest (and an ORM). */
const LINE_TIMEOUT_MS = 30_000;

export interface AppProcess {
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** The first match of `pattern` in the output, waiting for it up to a deadline. */
  waitFor(pattern: RegExp, what: string): Promise<RegExpExecArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface SpawnAppOptions {
  /** Where it runs; the repository root unless given. */
  cwd?: string;
  /** Node's options before `main`, such as `['-r', 'ts-node/register/transpile-only']`. */
  nodeArgs?: string[];
}

/**
 * Runs `node <main>` from the repository root as a README does, configured by `env`, and keeps what it logs.
 * `name` names it in failures ("The example").
 */
export function spawnApp(name: string, main: string, env: Record<string, string>, options: SpawnAppOptions = {}): AppProcess {
  if (!existsSync(main)) throw new Error(`${main} is missing; build first with npx tsc -b tsconfig.build.json`);
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), main], {
    cwd: options.cwd ?? REPOSITORY_ROOT,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const changed = new Set<() => void>();
  const append = (chunk: Buffer) => {
    output += chunk.toString();
    for (const notify of changed) notify();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const waitFor = (pattern: RegExp, what: string) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(output);
        if (match) finish(() => resolve(match));
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(`${name} did not log ${what} within ${LINE_TIMEOUT_MS} ms\n--- output ---\n${output}`))),
        LINE_TIMEOUT_MS,
      );
      const onExit = () => finish(() => reject(new Error(`${name} exited before it logged ${what}\n--- output ---\n${output}`)));
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        changed.delete(check);
        child.off('exit', onExit);
        settle();
      };
      changed.add(check);
      child.once('exit', onExit);
      check();
      if (child.exitCode !== null || child.signalCode !== null) onExit();
    });
  return { child, output: () => output, waitFor, exited };
}
