import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** The compiled standalone server; the root `test` script builds it before jest runs. */
const REPOSITORY_ROOT = resolve(__dirname, '../../..');
export const BROKER_MAIN = resolve(REPOSITORY_ROOT, 'apps/broker/dist/main.js');
/** The compiled `mmmq` command; `[CLI_MAIN, 'broker']` runs the same server as {@link BROKER_MAIN}. */
export const CLI_MAIN = resolve(REPOSITORY_ROOT, 'packages/cli/dist/main.js');
const LISTENING = /Listening on (https?:\/\/[^\s,]+), data in (\S+)/;
/** Logged before LISTENING when the publish stream is on. */
const STREAM_LISTENING = /Publish stream listening on (mmmqs?:\/\/\S+)/;
/** Generous: a busy two-core machine may take a while to load Nest and recover every topic. */
const STARTUP_TIMEOUT_MS = 60_000;

export interface BrokerProcess {
  child: ChildProcess;
  url: string;
  /** The publish stream's `mmmq://host:port` (`mmmqs://` with TLS), unless `MMMQ_STREAM_PORT=off`. */
  streamUrl?: string;
  dataDir: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Runs `node apps/broker/dist/main.js` (or `node …` with `command`, say `[CLI_MAIN, 'broker']`; under `prefix`, say
 * `prlimit`) and resolves once it logs where it listens. `onSpawn` gets the child at once, for tests that kill it before it is ready.
 */
export function spawnBroker(
  env: Record<string, string>,
  onSpawn?: (child: ChildProcess) => void,
  command: readonly string[] = [BROKER_MAIN],
  /** A program that runs node (`['prlimit', '--nofile=512:512']`); it must exec it, so the child is the broker. */
  prefix: readonly string[] = [],
): Promise<BrokerProcess> {
  if (!existsSync(command[0])) {
    throw new Error(`${command[0]} is missing; build first with npx tsc -b tsconfig.build.json`);
  }
  const [program, args] =
    prefix.length === 0 ? [process.execPath, [...command]] : [prefix[0], [...prefix.slice(1), process.execPath, ...command]];
  const child = spawn(program, args, {
    cwd: REPOSITORY_ROOT,
    env: { ...process.env, NO_COLOR: '1', MMMQ_HOST: '127.0.0.1', MMMQ_PORT: '0', MMMQ_STREAM_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onSpawn?.(child);
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise<BrokerProcess>((resolve, reject) => {
    const timeout = () => fail(new Error(`Broker did not start in ${STARTUP_TIMEOUT_MS} ms`));
    const timer = setTimeout(timeout, STARTUP_TIMEOUT_MS);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${error.message}\n--- broker output ---\n${output}`));
    };
    const onOutput = (chunk: Buffer) => {
      output += chunk.toString();
      const listening = LISTENING.exec(output);
      if (!listening) return;
      clearTimeout(timer);
      const streamUrl = STREAM_LISTENING.exec(output)?.[1];
      resolve({ child, url: listening[1], streamUrl, dataDir: listening[2], output: () => output, exited });
    };
    child.stdout?.on('data', onOutput);
    child.stderr?.on('data', onOutput);
    void exited.then(({ code, signal }) => fail(new Error(`Broker exited (code ${code}, signal ${signal})`)));
  });
}
