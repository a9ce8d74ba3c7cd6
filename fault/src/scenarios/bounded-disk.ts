import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { RecordingConsumer } from '../consumer/recording-consumer';
import { BrokerRunner } from '../harness/broker-runner';
import { drained } from '../harness/drained';
import type { ScenarioRun } from '../harness/scenario-run';
import { httpRequest } from '../load/http-post';

const TOPICS = ['bounded.a', 'bounded.b'];
const CONSUMER_ID = 'bounded-checker';
const KiB = 1024;
const SEGMENT_MAX_BYTES = 64 * KiB;
const RETENTION_BYTES = 512 * KiB;
/** Retention checks this often; a size limit is also checked after every rotation. */
const CHECK_INTERVAL_MS = 200;
const FLUSH_INTERVAL_MS = 100;
/** Each publisher sends a batch of this many messages, then waits for its answer and this long. */
const BATCH = 20;
const PAUSE_MS = 10;
const CONTENT_PADDING = 'p'.repeat(200);
const SAMPLE_MS = 250;
/**
 * What each topic may hold: its retention, plus the segments published between two checks (one rotation's check
 * waits for the flush that makes the closed segment deletable) — 8 segments is far more than one such interval.
 */
const TOPIC_BOUND_BYTES = RETENTION_BYTES + 8 * SEGMENT_MAX_BYTES;
/** The journal's own bound: its current file and a spare, each rotated at 64 MiB, and one more awaiting a flush. */
const JOURNAL_BOUND_BYTES = 3 * 64 * 1024 * KiB;
const DRAIN_TIMEOUT_MS = 60_000;

/**
 * Bounded disk: publishes and consumes continuously for the tier's duration with small segments and a small
 * `retention.bytes` (whenNeeded keep), sampling the disk use of the data root; the topics must stay within their
 * retention (plus a few segments) and every acknowledged message must reach the consumer, which keeps up.
 */
export async function runBoundedDisk(run: ScenarioRun): Promise<void> {
  const consumer = new RecordingConsumer();
  const rootDir = join(run.workDir, 'data');
  const runner = new BrokerRunner(rootDir, join(run.workDir, 'logs'), {
    MMMQ_SEGMENT_MAX_BYTES: String(SEGMENT_MAX_BYTES),
    MMMQ_FLUSH_INTERVAL_MS: String(FLUSH_INTERVAL_MS),
    MMMQ_RETENTION_CHECK_INTERVAL_MS: String(CHECK_INTERVAL_MS),
    MMMQ_TOPICS: JSON.stringify({ overrides: [{ pattern: 'bounded.*', retention: { bytes: RETENTION_BYTES } }] }),
  });
  const acked = new Set<string>();
  let refused = 0;
  const peak = { root: 0, topics: 0, journal: 0 };
  try {
    mkdirSync(rootDir, { recursive: true });
    await consumer.start();
    writeFileSync(join(rootDir, 'dispatchers.json'), JSON.stringify([consumer.dispatcher(CONSUMER_ID, 'bounded.*')]));
    const broker = await runner.start();
    const started = Date.now();
    const until = started + run.sizes.boundedDiskMs;
    const sampler = setInterval(() => {
      const topics = diskBytes(join(rootDir, 'topics'));
      const journal = diskBytes(join(rootDir, 'journal'));
      peak.topics = Math.max(peak.topics, topics);
      peak.journal = Math.max(peak.journal, journal);
      peak.root = Math.max(peak.root, topics + journal);
    }, SAMPLE_MS);
    const agent = new Agent({ keepAlive: true });
    try {
      await Promise.all(
        TOPICS.map(async (topic) => {
          for (let batch = 0; Date.now() < until; batch++) {
            const ids = Array.from({ length: BATCH }, (_, n) => `${topic}-${batch}-${n}`);
            const body = JSON.stringify({ messages: ids.map((id) => ({ topic, id, content: { id, padding: CONTENT_PADDING } })) });
            const answer = await httpRequest(`${broker.url}/mmmq/messages/batch`, { body, agent, timeoutMs: 30_000 });
            if (answer.status === 200) for (const id of ids) acked.add(id);
            else refused++;
            await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
          }
        }),
      );
    } finally {
      agent.destroy();
    }
    const publishedMs = Date.now() - started;
    await drained(runner, CONSUMER_ID, TOPICS, DRAIN_TIMEOUT_MS);
    clearInterval(sampler);
    const delivered = new Set(consumer.deliveries.map((delivery) => delivery.id));
    const lost = [...acked].filter((id) => !delivered.has(id));
    const views = await runner.get<Array<{ topic: string; stats: { retentionSkipped: number } }>>('/mmmq/subscriptions');
    const skipped = views.reduce((sum, view) => sum + view.stats.retentionSkipped, 0);
    await runner.stop();

    run.figure('publishing and consuming (s)', Math.round(publishedMs / 1000));
    run.figure('messages acknowledged', acked.size);
    run.figure('messages delivered to the consumer', delivered.size);
    run.figure('batches refused', refused, 0);
    run.figure('acknowledged but never delivered', lost.length, 0);
    run.figure('skipped by retention (whenNeeded: keep)', skipped, 0);
    run.figure('peak disk bytes, topics', peak.topics);
    run.figure('peak disk bytes, journal', peak.journal);
    run.figure('peak disk bytes, data root (topics + journal)', peak.root);
    run.figure('topic bound (bytes)', TOPIC_BOUND_BYTES * TOPICS.length);
    run.figure('final disk bytes, topics', diskBytes(join(rootDir, 'topics')));
    run.expectThat(
      peak.topics <= TOPIC_BOUND_BYTES * TOPICS.length,
      `The topics took ${peak.topics} bytes at their peak, more than ${TOPIC_BOUND_BYTES * TOPICS.length}`,
    );
    run.expectThat(
      peak.journal <= JOURNAL_BOUND_BYTES,
      `The journal took ${peak.journal} bytes at its peak, more than ${JOURNAL_BOUND_BYTES}`,
    );
    run.expectFiguresMet();
  } finally {
    if (runner.running) await runner.kill();
    await consumer.stop();
  }
}

/** Blocks allocated to every file under `dir` (what the files really take on disk). */
function diskBytes(dir: string): number {
  let total = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    try {
      total += entry.isDirectory() ? diskBytes(path) : statSync(path).blocks * 512;
    } catch {
      // Deleted between the listing and the stat: retention at work.
    }
  }
  return total;
}
