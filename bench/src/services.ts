import { ChildProcess, execFile, spawn, type StdioOptions } from 'node:child_process';
import { mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
const run = promisify(execFile);

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** Every directory the bench makes lives under one temp root, removed at the end. */
let tempRoot: string | undefined;
export function tempDir(prefix: string): string {
  tempRoot ??= mkdtempSync(path.join(os.tmpdir(), 'mmmq-bench-'));
  return mkdtempSync(path.join(tempRoot, `${prefix}-`));
}
export function removeTempRoot(): void {
  if (tempRoot) rmSync(tempRoot, { recursive: true, force: true });
  tempRoot = undefined;
}

export function portOpen(port: number, host = '127.0.0.1', timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export async function waitForPort(port: number, timeoutMs: number, what: string, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode} before listening on ${port}`);
    if (await portOpen(port, '127.0.0.1', 200)) return;
    await sleep(20);
  }
  throw new Error(`${what} did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Pids whose /proc/<pid>/comm is `comm` and whose command line contains `argContains` (if given). */
export function findPids(comm: string, argContains?: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== comm) continue;
      if (argContains && !readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').includes(argContains)) continue;
      pids.push(Number(entry));
    } catch {
      // the process exited while we looked
    }
  }
  return pids;
}

export async function commandOutput(file: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(file, args, { timeout: 120_000 });
    return stdout.trim();
  } catch (error) {
    return `unknown (${(error as Error).message.split('\n')[0]})`;
  }
}

/** Runs a command and fails with its output when it fails. */
export async function mustRun(file: string, args: string[], timeoutMs = 120_000): Promise<void> {
  try {
    await run(file, args, { timeout: timeoutMs });
  } catch (error) {
    const e = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`, { cause: error });
  }
}

/** A server process the bench started itself, with its output in a log file; stopped by its own pid only. */
export class ManagedProcess {
  private child?: ChildProcess;

  constructor(
    readonly name: string,
    private readonly file: string,
    private readonly args: string[],
    private readonly logFile: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly cwd: string = REPO_ROOT,
  ) {}

  get pid(): number | undefined {
    return this.child && this.child.exitCode === null && this.child.signalCode === null ? this.child.pid : undefined;
  }

  /** `ipc`: a Node child with an IPC channel (`child.send`, `process.send`), for a process the bench drives. */
  start(options: { ipc?: boolean } = {}): ChildProcess {
    if (this.pid) throw new Error(`${this.name} is already running`);
    const out = openSync(this.logFile, 'a');
    const stdio: StdioOptions = options.ipc ? ['ignore', out, out, 'ipc'] : ['ignore', out, out];
    this.child = spawn(this.file, this.args, { cwd: this.cwd, env: this.env, stdio });
    this.child.on('error', (error) => log(`${this.name}: ${error.message}`));
    return this.child;
  }

  /** SIGTERM (a clean shutdown for every server here), then SIGKILL after `graceMs`. */
  async stop(graceMs = 60_000): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => {
      log(`${this.name} (pid ${child.pid}) ignored SIGTERM for ${graceMs} ms: SIGKILL`);
      child.kill('SIGKILL');
    }, graceMs);
    await exited;
    clearTimeout(timer);
  }
}

/** Processes started by this run, stopped at exit even when the run fails. */
const running = new Set<ManagedProcess>();
export function track(p: ManagedProcess): ManagedProcess {
  running.add(p);
  return p;
}
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((p) => p.stop(10_000).catch(() => undefined)));
  running.clear();
}

/** RabbitMQ and NATS are the machine's services: start them with the machine's own commands when down. */
export async function ensureRabbitMq(): Promise<void> {
  if (await portOpen(5672)) return;
  log('RabbitMQ is down: starting it (rabbitmq-server -detached)');
  await mustRun('rabbitmq-server', ['-detached']);
  await waitForPort(5672, 120_000, 'RabbitMQ');
  await sleep(2000);
}

export const NATS_SYSTEM_PORT = 4222;
export async function ensureNats(): Promise<void> {
  if (await portOpen(NATS_SYSTEM_PORT)) return;
  log('NATS is down: starting it (start-stop-daemon … nats-server -js)');
  await mustRun('start-stop-daemon', [
    '--start',
    '--oknodo',
    '--background',
    '--exec',
    '/usr/sbin/nats-server',
    '--',
    '-a',
    '127.0.0.1',
    '-p',
    String(NATS_SYSTEM_PORT),
    '-js',
    '-sd',
    '/var/lib/nats-server',
    '-l',
    '/var/log/nats-server.log',
  ]);
  await waitForPort(NATS_SYSTEM_PORT, 30_000, 'NATS');
}

export function rabbitPids(): number[] {
  return findPids('beam.smp', 'rabbit');
}

export function natsSystemPids(): number[] {
  return findPids('nats-server', `-p ${NATS_SYSTEM_PORT}`);
}
