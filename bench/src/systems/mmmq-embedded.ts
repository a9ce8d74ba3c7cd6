import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { BenchConfig } from '../config';
import { ManagedProcess, tempDir, track } from '../services';
import type { EmbeddedPhase } from '../workloads/embedded-phases';
import type { RoundOutcome } from '../workloads/workload';
import type { FromEmbeddedApp, ToEmbeddedApp } from './embedded-protocol';

/** The child's entry, compiled beside this file. */
const APP_MAIN = path.join(__dirname, 'mmmq-embedded-app.js');
/** How long the app may take to boot (Nest, the broker opening a fresh data dir, the listener subscribing). */
const READY_DEADLINE_MS = 120_000;

/** What the bench does when the app asks it to sample its CPU (start or stop a `ProcessSampler` on `pid`). */
export interface SamplingHooks {
  start(): void | Promise<void>;
  stop(): void | Promise<void>;
}

/**
 * MMMQ's one-app form in a process of its own, started by the bench: `mmmq-embedded-app.ts` on a fresh
 * data dir, its CPU sampled alone from /proc like the standalone broker's. The bench drives it over the child's IPC
 * channel, one phase at a time; node options for it (`--cpu-prof`) come from `BENCH_EMBEDDED_NODE_ARGS`.
 */
export class EmbeddedApp {
  private pending?: { resolve: (outcome: RoundOutcome) => void; reject: (error: Error) => void; hooks: SamplingHooks };

  private constructor(
    private readonly managed: ManagedProcess,
    private readonly child: ChildProcess,
    /** The broker's data dir, also where the bench's bare fdatasync loop writes (the same disk). */
    readonly rootDir: string,
  ) {
    child.on('message', (message: FromEmbeddedApp) => void this.onMessage(message));
    child.once('exit', (code, signal) => this.pending?.reject(new Error(`the embedded app exited (${signal ?? `code ${code}`})`)));
  }

  /** Starts the app with one listener of `pattern`; resolves once it is ready for a phase. */
  static async start(pattern: string): Promise<EmbeddedApp> {
    const rootDir = tempDir('mmmq-embedded');
    const managed = track(
      new ManagedProcess(
        'MMMQ embedded app',
        process.execPath,
        [...(process.env.BENCH_EMBEDDED_NODE_ARGS ?? '').split(' ').filter(Boolean), APP_MAIN],
        path.join(rootDir, '..', 'mmmq-embedded-app.log'),
        { ...process.env, BENCH_EMBEDDED_ROOT_DIR: rootDir, BENCH_EMBEDDED_PATTERN: pattern },
      ),
    );
    const child = managed.start({ ipc: true });
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`the embedded app was not ready within ${READY_DEADLINE_MS} ms`)),
          READY_DEADLINE_MS,
        );
        child.on('message', (message: FromEmbeddedApp) => message.kind === 'ready' && (clearTimeout(timer), resolve()));
        child.once('exit', (code, signal) => {
          clearTimeout(timer);
          reject(
            new Error(`the embedded app exited (${signal ?? `code ${code}`}) before it was ready; see ${rootDir}/../mmmq-embedded-app.log`),
          );
        });
      });
    } catch (error) {
      await managed.stop(10_000);
      throw error;
    }
    return new EmbeddedApp(managed, child, rootDir);
  }

  get pid(): number | undefined {
    return this.managed.pid;
  }

  /** Runs one phase in the app, calling `hooks` when it asks to sample; resolves to the phase's figures. */
  run(phase: EmbeddedPhase, topic: string, config: BenchConfig, hooks: SamplingHooks): Promise<RoundOutcome> {
    if (this.pending) return Promise.reject(new Error('a phase is already running'));
    return new Promise<RoundOutcome>((resolve, reject) => {
      this.pending = { resolve, reject, hooks };
      this.send({ kind: 'run', phase, topic, config });
    }).finally(() => (this.pending = undefined));
  }

  /** SIGTERM: the app shuts down cleanly (its broker closes every topic) and exits. */
  stop(): Promise<void> {
    return this.managed.stop();
  }

  private send(message: ToEmbeddedApp): void {
    this.child.send(message);
  }

  private async onMessage(message: FromEmbeddedApp): Promise<void> {
    const pending = this.pending;
    if (!pending) return;
    if (message.kind === 'sample') {
      await (message.at === 'start' ? pending.hooks.start() : pending.hooks.stop());
      this.send({ kind: 'sampled' });
    } else if (message.kind === 'done') pending.resolve(message.outcome);
    else if (message.kind === 'failed') pending.reject(new Error(`in the embedded app: ${message.message}`));
  }
}
