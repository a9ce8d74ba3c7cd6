import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Issue 37's memory figure: the standalone broker's RSS with 1,000,000 scheduled messages (1 h ahead) waiting in one
 * subscription, and again after a clean restart rebuilt the schedule from the log. Not part of `pnpm bench`'s run:
 * `node bench/dist/scheduled-memory.js [messages]` after `npx tsc -b tsconfig.build.json` and `pnpm --filter @mmmq/bench build`.
 */
const MESSAGES = Number(process.argv[2] ?? 1_000_000);
const BATCH = 1000;
const IN_FLIGHT = 4;
const DELAY_MS = 3_600_000;
const BROKER_MAIN = resolve(__dirname, '../../apps/broker/dist/main.js');
const TOPIC = 'rss.scheduled';
const CONSUMER = 'rss';

function startBroker(rootDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BROKER_MAIN], {
    env: { ...process.env, NO_COLOR: '1', MMMQ_HOST: '127.0.0.1', MMMQ_PORT: '0', MMMQ_STREAM_PORT: 'off', MMMQ_ROOT_DIR: rootDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((done, fail) => {
    let output = '';
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /Listening on (https?:\/\/[^\s,]+)/.exec(output)?.[1];
      if (url) done({ child, url });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => fail(new Error(`broker exited (${code}): ${output}`)));
  });
}

async function call<T = unknown>(url: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as T;
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** VmRSS and VmHWM of a process, in MiB (Linux). */
function rss(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]);
  return { rss: Math.round(kib('VmRSS') / 1024), peak: Math.round(kib('VmHWM') / 1024) };
}

/** Fetches once (which reads the log into the schedule) and waits until every message is scheduled. */
async function scheduleBuilt(url: string): Promise<number> {
  const started = performance.now();
  for (;;) {
    // A fetch reads the log into the schedule; after a restart the subscription may not be attached yet.
    await call(url, `/mmmq/consumers/${CONSUMER}/fetch`, { max: 1, waitMs: 0 });
    const rows = await call<Array<{ consumerId: string; scheduled: number }>>(url, '/mmmq/subscriptions');
    if (rows.find((row) => row.consumerId === CONSUMER)?.scheduled === MESSAGES) return performance.now() - started;
    await new Promise((wake) => setTimeout(wake, 200));
  }
}

async function main(): Promise<void> {
  const rootDir = mkdtempSync(join(tmpdir(), 'mmmq-scheduled-rss-'));
  let broker: { child: ChildProcess; url: string } | undefined;
  // The broker must not outlive this script, whatever ends it.
  const stop = () => broker?.child.kill('SIGKILL');
  process.once('SIGTERM', () => {
    stop();
    process.exit(1);
  });
  try {
    broker = await startBroker(rootDir);
    await call(broker.url, '/mmmq/dispatchers', { consumerId: CONSUMER, pattern: TOPIC });
    const idle = rss(broker.child.pid!);
    const started = performance.now();
    let next = 0;
    const worker = async (url: string) => {
      for (let first = (next += BATCH) - BATCH; first < MESSAGES; first = (next += BATCH) - BATCH) {
        const messages = Array.from({ length: Math.min(BATCH, MESSAGES - first) }, (_, i) => ({
          topic: TOPIC,
          content: { n: first + i },
          delayMs: DELAY_MS,
        }));
        await call(url, '/mmmq/messages/batch', { messages });
      }
    };
    const { url } = broker;
    await Promise.all(Array.from({ length: IN_FLIGHT }, () => worker(url)));
    const publishSeconds = (performance.now() - started) / 1000;
    const built = await scheduleBuilt(broker.url);
    const loaded = rss(broker.child.pid!);
    broker.child.kill('SIGTERM');
    await new Promise((done) => broker!.child.once('exit', done));
    broker = await startBroker(rootDir);
    const rebuilt = await scheduleBuilt(broker.url);
    const restarted = rss(broker.child.pid!);
    broker.child.kill('SIGTERM');
    await new Promise((done) => broker!.child.once('exit', done));
    broker = undefined;
    console.log(
      JSON.stringify(
        {
          messages: MESSAGES,
          publishSeconds,
          idleMiB: idle,
          scheduledMiB: loaded,
          buildMs: Math.round(built),
          restartedMiB: restarted,
          rebuildMs: Math.round(rebuilt),
        },
        null,
        1,
      ),
    );
  } finally {
    stop();
    rmSync(rootDir, { recursive: true, force: true });
  }
}

void main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
