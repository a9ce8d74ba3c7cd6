import { ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { FAULT_DIR } from '../report/scenario-report';

const WORKER_SCRIPT = resolve(__dirname, 'transacting-worker.ts');
const REPOSITORY_ROOT = resolve(FAULT_DIR, '..');

/**
 * One transacting-worker process (see transacting-worker.ts), run from its TypeScript source through ts-node's
 * transpile-only hook, so the fault suite needs no build step of its own. `committed` counts the commits it
 * reported; SIGKILL ends it wherever it is.
 */
export class TransactingWorker {
  committed = 0;
  private readonly exited: Promise<void>;

  private constructor(private readonly child: ChildProcess) {
    this.exited = new Promise((done) => child.once('exit', () => done()));
    let pending = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      this.committed += lines.filter((line) => line.startsWith('committed ')).length;
    });
    child.stderr?.resume();
  }

  static start(brokerUrl: string, consumerId: string, inFlight: number): TransactingWorker {
    const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', WORKER_SCRIPT], {
      cwd: REPOSITORY_ROOT,
      env: {
        ...process.env,
        TS_NODE_PROJECT: resolve(FAULT_DIR, 'tsconfig.json'),
        MMMQ_TX_BROKER: brokerUrl,
        MMMQ_TX_CONSUMER: consumerId,
        MMMQ_TX_IN_FLIGHT: String(inFlight),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new TransactingWorker(child);
  }

  async kill(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }
}
