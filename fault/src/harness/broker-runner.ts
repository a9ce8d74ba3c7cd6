import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BrokerProcess, spawnBroker } from '@mmmq/test-support';
import { httpRequest } from '../load/http-post';
import { nextPort, portRange } from './port-range';

/**
 * Starts on ports of `MMMQ_FAULT_PORTS` (probed free, then bound by the broker) before giving up: in between, one
 * of the suite's own client connections may take the port as its local port (the range lies among the ephemeral
 * ones).
 */
const PORT_ATTEMPTS = 3;

/** A SIGTERM'd broker that has not exited after this long is a hang (and is killed). */
export const STOP_TIMEOUT_MS = 30_000;

/**
 * Starts, kills and stops the standalone broker (`apps/broker/dist/main.js`) on one data directory, one process
 * at a time. Each process's output goes to `{logDir}/broker-{n}.log`, never to the test output.
 */
export class BrokerRunner {
  private process?: BrokerProcess;
  private starts = 0;

  constructor(
    readonly rootDir: string,
    private readonly logDir: string,
    private readonly env: Record<string, string> = {},
    /** Runs the broker under this program (say `['prlimit', '--nofile=512:512']`), which execs node. */
    private readonly prefix: readonly string[] = [],
  ) {
    mkdirSync(logDir, { recursive: true });
  }

  get current(): BrokerProcess {
    if (!this.process) throw new Error('No broker is running');
    return this.process;
  }

  get running(): boolean {
    return this.process !== undefined;
  }

  /** Starts a broker and resolves once it listens; rejects (with its output) when it exits first. */
  async start(): Promise<BrokerProcess> {
    if (this.process) throw new Error('A broker is already running');
    let number = this.starts++;
    for (let attempt = 1; ; attempt++) {
      try {
        this.process = await spawnBroker(await this.processEnv(), undefined, undefined, this.prefix);
        break;
      } catch (error) {
        this.writeLog(number, String((error as Error).message));
        if (!portTaken(error) || attempt >= PORT_ATTEMPTS) throw error;
        number = this.starts++;
      }
    }
    const started = this.process;
    void started.exited.then(() => this.writeLog(number, started.output()));
    return started;
  }

  /** Starts a broker; undefined (and the process killed) when it is not ready within `timeoutMs`. */
  async startWithin(timeoutMs: number): Promise<BrokerProcess | undefined> {
    if (this.process) throw new Error('A broker is already running');
    const number = this.starts++;
    let child: ChildProcess | undefined;
    const starting = spawnBroker(await this.processEnv(), (spawned) => (child = spawned), undefined, this.prefix);
    const timer = setTimeout(() => child?.kill('SIGKILL'), timeoutMs);
    try {
      const started = await starting;
      this.process = started;
      void started.exited.then(() => this.writeLog(number, started.output()));
      return started;
    } catch (error) {
      this.writeLog(number, (error as Error).message);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Starts a broker and SIGKILLs it `afterMs` after the spawn, ready or not. Resolves once it is gone. */
  async startAndKillAfter(afterMs: number): Promise<'before-ready' | 'after-ready'> {
    const number = this.starts++;
    let child: ChildProcess | undefined;
    const starting = spawnBroker(await this.processEnv(), (spawned) => (child = spawned), undefined, this.prefix);
    if (!child) throw new Error('spawnBroker did not hand over the child process');
    const spawned: ChildProcess = child;
    const exited = new Promise<void>((resolve) => spawned.once('exit', () => resolve()));
    const timer = setTimeout(() => spawned.kill('SIGKILL'), afterMs);
    const outcome = await starting.then(
      (started) => {
        void exited.then(() => this.writeLog(number, started.output()));
        return 'after-ready' as const;
      },
      (error: Error) => {
        this.writeLog(number, error.message);
        return 'before-ready' as const;
      },
    );
    await exited;
    clearTimeout(timer);
    return outcome;
  }

  async kill(): Promise<void> {
    const process = this.current;
    process.child.kill('SIGKILL');
    await process.exited;
    this.process = undefined;
  }

  /**
   * SIGTERM; resolves with how the broker ended (a clean shutdown exits with 0), or fails when it hangs.
   */
  async stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null; clean: boolean }> {
    const process = this.current;
    process.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), STOP_TIMEOUT_MS)));
    const exit = await Promise.race([process.exited, hung]);
    clearTimeout(timer);
    this.process = undefined;
    if (exit === 'hung') {
      process.child.kill('SIGKILL');
      await process.exited;
      throw new Error(`The broker did not exit within ${STOP_TIMEOUT_MS} ms of SIGTERM`);
    }
    return { ...exit, clean: exit.code === 0 || (exit.code === null && exit.signal === 'SIGTERM') };
  }

  /** GET on the running broker; JSON parsed. */
  async get<T>(path: string): Promise<T> {
    const answer = await httpRequest(`${this.current.url}${path}`, { method: 'GET', timeoutMs: 10_000 });
    if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}: ${answer.body.slice(0, 200)}`);
    return JSON.parse(answer.body) as T;
  }

  /** The broker's environment: its data root, ports from `MMMQ_FAULT_PORTS` when set, the runner's variables. */
  private async processEnv(): Promise<Record<string, string>> {
    const ports: Record<string, string> = portRange()
      ? { MMMQ_PORT: String(await nextPort()), MMMQ_STREAM_PORT: String(await nextPort()) }
      : {};
    return { MMMQ_ROOT_DIR: this.rootDir, ...ports, ...this.env };
  }

  private writeLog(number: number, output: string): void {
    writeFileSync(join(this.logDir, `broker-${number}.log`), output);
  }
}

/** Whether a start failed only because a port from `MMMQ_FAULT_PORTS` was taken meanwhile. */
function portTaken(error: unknown): boolean {
  return portRange() !== undefined && /EADDRINUSE/.test(String((error as Error)?.message));
}
