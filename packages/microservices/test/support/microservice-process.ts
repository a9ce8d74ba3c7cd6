import { ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { waitFor } from '@mmmq/test-support';

const REPOSITORY_ROOT = resolve(__dirname, '../../../..');
/** The microservice the child runs, from source through ts-node (no build needed). */
export const SLOW_HANDLER_MAIN = resolve(__dirname, 'slow-handler-microservice.main.ts');
/** Generous: ts-node and Nest load in a few seconds, more on a busy two-core machine. */
const READY_TIMEOUT_MS = 60_000;

/** A line `EVENT {...}` the child wrote. */
export interface ProcessEvent {
  event: string;
  name?: string;
  deliveryCount?: number;
}

export interface MicroserviceProcess {
  child: ChildProcess;
  readonly events: readonly ProcessEvent[];
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL unless it exited already; for cleanup. */
  kill(): Promise<void>;
}

export interface SlowHandlerEnv {
  BROKER_URL: string;
  DELIVERY: 'push' | 'pull';
  HANDLER_MS: string;
  ADVERTISED_URL?: string;
  /** Messages a push carries (default 1). */
  BATCH_SIZE?: string;
}

/** Spawns the slow-handler microservice and resolves once it logged that it listens. */
export async function spawnSlowHandlerMicroservice(env: SlowHandlerEnv): Promise<MicroserviceProcess> {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', SLOW_HANDLER_MAIN], {
    cwd: REPOSITORY_ROOT,
    env: { ...process.env, NO_COLOR: '1', TS_NODE_PROJECT: resolve(REPOSITORY_ROOT, 'tsconfig.json'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let pending = '';
  const events: ProcessEvent[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('EVENT ')) events.push(JSON.parse(line.slice('EVENT '.length)) as ProcessEvent);
  });
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let ended = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      ended = true;
      resolve({ code, signal });
    }),
  );
  const process_: MicroserviceProcess = {
    child,
    events,
    output: () => output,
    exited,
    async kill() {
      if (!ended) child.kill('SIGKILL');
      await exited;
    },
  };
  try {
    await waitFor(
      () => {
        if (ended) throw new Error(`The microservice exited before it was ready\n--- output ---\n${output}`);
        return events.some(({ event }) => event === 'ready');
      },
      { deadlineMs: READY_TIMEOUT_MS, pollMs: 50, message: () => `the microservice to be ready\n--- output ---\n${output}` },
    );
  } catch (error) {
    await process_.kill();
    throw error;
  }
  return process_;
}
