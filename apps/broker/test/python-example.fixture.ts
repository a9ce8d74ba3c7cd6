import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

/** The interpreter that runs the examples: `MMMQ_PYTHON`, else `python3` from the PATH. */
export const PYTHON = process.env.MMMQ_PYTHON ?? 'python3';
/** The oldest Python the examples are written for (they use only its standard library). */
export const MIN_PYTHON = [3, 8] as const;
const EXAMPLES_DIR = resolve(__dirname, '../../../examples/python');

/**
 * Throws unless `PYTHON` runs and is at least `MIN_PYTHON`. The tests fail rather than skip without it: they are
 * the only check that the HTTP contract works from outside Node, and a skip would switch that check off unseen.
 */
export function requirePython(): void {
  const probe = spawnSync(PYTHON, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' });
  const version = probe.status === 0 ? probe.stdout.trim().split('.').map(Number) : undefined;
  if (!version || version[0] < MIN_PYTHON[0] || (version[0] === MIN_PYTHON[0] && version[1] < MIN_PYTHON[1])) {
    const found = version ? `Python ${version.join('.')}` : `not runnable (${probe.error?.message ?? probe.stderr})`;
    throw new Error(
      `These tests run the Python examples of docs/http-api.md and need Python >= ${MIN_PYTHON.join('.')}: ` +
        `${PYTHON} is ${found}. Install python3, or point MMMQ_PYTHON at an interpreter.`,
    );
  }
}

export interface PythonRun {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The exit code, or the signal's name; a spawn error rejects. */
  exited: Promise<number | string>;
}

/** Starts `examples/python/{script}` with `args`. `MMMQ_TOKEN` and `MMMQ_BROKER` come only from `env`. */
export function runPython(script: 'mmmq_producer.py' | 'mmmq_consumer.py', args: string[], env: Record<string, string> = {}): PythonRun {
  const child = spawn(PYTHON, [resolve(EXAMPLES_DIR, script), ...args], {
    env: { ...process.env, MMMQ_TOKEN: '', MMMQ_BROKER: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | string>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Waits for the run to exit 0. Fails, showing its output, if it exits otherwise or outlives `timeoutMs` (then killed). */
export async function succeeds(run: PythonRun, what: string, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  const result = await Promise.race([run.exited, timedOut]).finally(() => clearTimeout(timer));
  if (result === 0) return;
  if (result === 'timeout') {
    run.child.kill('SIGKILL');
    await run.exited;
  }
  const how = result === 'timeout' ? `did not finish within ${timeoutMs} ms` : `exited with ${result}`;
  throw new Error(`${what} ${how}\n--- stdout ---\n${run.stdout()}\n--- stderr ---\n${run.stderr()}`);
}

/** Resolves once the run's stderr matches `pattern`; fails if it exits first or after `timeoutMs`. */
export function stderrMatches(run: PythonRun, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = pattern.exec(run.stderr());
      if (!match) return false;
      done();
      resolve(match);
      return true;
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`stderr did not match ${pattern} within ${timeoutMs} ms:\n${run.stderr()}`));
    }, timeoutMs);
    const exited = () => {
      if (check()) return;
      done();
      reject(new Error(`exited before stderr matched ${pattern}:\n${run.stderr()}`));
    };
    const done = () => {
      clearTimeout(timer);
      run.child.stderr!.off('data', check);
      run.child.off('close', exited);
    };
    run.child.stderr!.on('data', check);
    run.child.once('close', exited);
    check();
  });
}
