/**
 * Figures of `GET /metrics` on a real broker with many topics: the longest event-loop stall while a scrape runs (a
 * `monitorEventLoopDelay` histogram and a setImmediate gap probe beside it), the scrape's wall time and bytes. The
 * topics are made by batch publishes (one message each, 1,000 topics a batch; the descriptor pool opens files on
 * demand), each read by one pull subscription (a `bench.**` dispatcher). The scrape is read by `curl`, in another
 * process, so that reading the ~3 MB reply does not count as the broker's stall.
 *
 *   npx tsc -b tsconfig.build.json
 *   npx ts-node --transpile-only packages/broker/test/metrics/measure-broker-scrape.ts [topics…]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { NestFactory } from '@nestjs/core';
import { MmmqBrokerModule } from '../../src';

const BATCH = 1_000;
const SCRAPES = Number(process.env.SCRAPES ?? 10);

async function main(): Promise<void> {
  const counts = process.argv.slice(2).map(Number);
  for (const topics of counts.length > 0 ? counts : [10_000, 100_000]) {
    const rootDir = mkdtempSync(join(tmpdir(), 'mmmq-scrape-'));
    const module = MmmqBrokerModule.forRoot({ persistence: { rootDir }, limits: { maxTopics: topics + 1_000 } });
    const app = await NestFactory.create(module, { bodyParser: false, logger: ['error'] });
    await app.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    const request = async (method: string, path: string, body: unknown) => {
      const response = await fetch(url + path, { method, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      return { status: response.status, body: await response.text() };
    };
    try {
      const registered = await request('POST', '/mmmq/dispatchers', { consumerId: 'scraper', pattern: 'bench.**' });
      if (registered.status >= 300) throw new Error(`dispatcher: ${registered.status} ${registered.body}`);
      const made = performance.now();
      for (let from = 0; from < topics; from += BATCH) {
        const messages = Array.from({ length: Math.min(BATCH, topics - from) }, (_, i) => ({
          topic: `bench.t${String(from + i).padStart(6, '0')}`,
          content: from + i,
        }));
        const response = await request('POST', '/mmmq/messages/batch', { messages });
        if (response.status !== 200) throw new Error(`batch: ${response.status} ${response.body}`);
      }
      console.log(`${topics} topics made in ${((performance.now() - made) / 1000).toFixed(1)} s`);
      const scrapes: Stall[] = [];
      const idle: Stall[] = [];
      for (let run = 0; run <= SCRAPES; run++) {
        // Spawned first: forking curl holds the event loop itself, which is not the scrape's doing.
        const scraped = scrapeWithCurl(`${url}/metrics`);
        const scrape = await longestStall(scraped);
        // The same time without a scrape: what the machine's other work does to the event loop.
        const quiet = await longestStall(new Promise((resolve) => setTimeout(resolve, scrape.ms)));
        console.log(
          `${topics} topics, scrape ${run}${run === 0 ? ' (fills the slots)' : ''}: ${scrape.bytes} bytes in ` +
            `${scrape.ms.toFixed(0)} ms, longest stall ${scrape.longestMs.toFixed(1)} ms, longest turn's CPU ` +
            `${scrape.longestCpuMs.toFixed(1)} ms (the same time without a scrape: ${quiet.longestMs.toFixed(1)} ms, ` +
            `${quiet.longestCpuMs.toFixed(1)} ms)`,
        );
        if (run > 0) {
          scrapes.push(scrape);
          idle.push(quiet);
        }
      }
      console.log(`${topics} topics: per scrape, longest ${summary(scrapes)}; without a scrape ${summary(idle)}`);
    } finally {
      await app.close();
      rmSync(rootDir, { recursive: true, force: true });
    }
  }
}

interface Stall {
  /** The longest event-loop stall seen: the larger of a setImmediate chain's longest gap and monitorEventLoopDelay's max. */
  longestMs: number;
  /**
   * The most CPU time the process used between two turns of the setImmediate chain: the longest turn as the CPU
   * sees it, which other processes on a loaded machine do not stretch (it also counts libuv's and V8's threads).
   */
  longestCpuMs: number;
  ms: number;
  bytes: number;
}

/** Watches the event loop until `work` resolves. */
async function longestStall(work: Promise<unknown>): Promise<Stall> {
  if (process.env.PROBE === 'off') return { longestMs: 0, longestCpuMs: 0, ms: 0, bytes: Number(await work) };
  const delay = monitorEventLoopDelay({ resolution: 1 });
  let longestGap = 0;
  let longestCpu = 0;
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let running = true;
  const probe = () => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    longestGap = Math.max(longestGap, now - last);
    longestCpu = Math.max(longestCpu, (cpu.user + cpu.system) / 1000);
    last = now;
    lastCpu = process.cpuUsage();
    if (running) setImmediate(probe);
  };
  delay.enable();
  setImmediate(probe);
  const started = performance.now();
  const result = await work;
  const ms = performance.now() - started;
  running = false;
  delay.disable();
  return { longestMs: Math.max(longestGap, delay.max / 1e6), longestCpuMs: longestCpu, ms, bytes: typeof result === 'number' ? result : 0 };
}

/** Median and maximum of the runs' longest stalls. */
function summary(stalls: readonly Stall[]): string {
  const figures = (values: number[]) => {
    const sorted = values.sort((a, b) => a - b);
    return `median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms`;
  };
  return `stall ${figures(stalls.map((stall) => stall.longestMs))}, turn's CPU ${figures(stalls.map((stall) => stall.longestCpuMs))}`;
}

/** Bytes of the reply, read by curl in another process. */
function scrapeWithCurl(url: string): Promise<number> {
  return new Promise((resolve, reject) =>
    execFile('curl', ['-sf', '-o', '/dev/null', '-w', '%{size_download}', url], (error, stdout) =>
      error ? reject(error) : resolve(Number(stdout)),
    ),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
