import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { content, type BenchContent } from '../payload';
import type { BenchConfig } from '../config';
import { MMMQ_INBOX_CONCURRENCY, MMMQ_INBOX_GROUP_COMMIT } from '../systems/mmmq-outbox';
import {
  CONSUMER_CONCURRENCY,
  CONSUMER_PREFETCH,
  PG_CONNECTION,
  RELAY_BATCH,
  type OutboxPipeline,
  type OutboxRound,
} from '../systems/outbox-pipeline';
import { DeliveryTracker } from './end-to-end';
import { runWritersOnThread } from './outbox-writer-thread';
import { MAX, P50, P99, RATE, type MetricDef, type Workload } from './workload';

/** The writers' own pace: business transactions committed per second; not a performance of the broker. */
export const WRITE_RATE: MetricDef = { key: 'writeRate', label: 'business commits/s', unit: '/s', better: 'higher', ratio: false };
/**
 * CPU time of the bench process (writers, relay and consumer: the system's client code) per message, the runner's
 * sampled `process.cpuUsage()` over the measured phase; on a machine whose cores PostgreSQL shares, what bounds the rate.
 */
export const CLIENT_CPU_PER_MESSAGE: MetricDef = { key: 'clientCpuPerMessage', label: 'client CPU ms/msg', unit: 'ms', better: 'lower' };

/** Business commits per second the round's time limit allows for even on a slow disk (this machine does ~150–250). */
const SLOWEST_WRITES_PER_SECOND = 20;

/** A PostgreSQL schema name for the round, from its (unique) topic prefix. */
export function roundSchema(prefix: string): string {
  return prefix
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, 48);
}

/**
 * `live`: the writers commit while the pipeline runs, so the rate is at most theirs (on a machine PostgreSQL shares,
 * it often is theirs); `backlog`: the writers commit every row first and the pipeline then drains them, which measures
 * the pipeline's own throughput.
 */
export type OutboxInboxMode = 'live' | 'backlog';

/**
 * The exactly-once effect (docs/exactly-once.md), end to end on PostgreSQL: business transactions each write a
 * business row and an outbox row; the system's relay publishes the outbox; its consumer reserves each message in an
 * inbox table in the transaction of its side-effect row, then acknowledges. MMMQ (@mmmq/postgres's outbox, relay and inbox) against the
 * same pattern built on RabbitMQ; see bench/README.md, *Drivers*.
 */
export const outboxInbox = (mode: OutboxInboxMode): Workload => ({
  id: mode === 'live' ? 'outbox-inbox' : 'outbox-inbox-backlog',
  title: () =>
    mode === 'live'
      ? 'Outbox → relay → broker → consumer with inbox (PostgreSQL), writers alongside'
      : 'Outbox backlog → relay → broker → consumer with inbox (PostgreSQL), drained',
  describe: (c) => describe(c, mode),
  metrics: [RATE(), P50, P99, MAX, WRITE_RATE, CLIENT_CPU_PER_MESSAGE],
  headline: 'rate',
  // The writers' time comes on top of the usual wait for the deliveries.
  hardLimitSeconds: (c) => c.roundTimeoutSeconds * 3 + Math.ceil(c.outboxMessages / SLOWEST_WRITES_PER_SECOND),
  applies: (system) =>
    system.outboxPipeline ? true : 'this workload compares the pattern with RabbitMQ only: no outbox relay is built for it',
  async run(system, ctx) {
    const c = ctx.config;
    const n = c.outboxMessages;
    const plan = ctx.plan(1, 1);
    const schema = roundSchema(plan.prefix);
    // The writers' pool, also used to set up the round and to check it afterwards.
    const pool = new Pool({ ...PG_CONNECTION, max: c.outboxWriters });
    pool.on('error', () => undefined);
    const tracker = new DeliveryTracker(n, 1);
    const committedAt = new Float64Array(new SharedArrayBuffer(n * Float64Array.BYTES_PER_ELEMENT));
    let firstCommitAt = NaN;
    let lastCommitAt = NaN;
    let suppressed = 0;
    const round: OutboxRound = {
      schema,
      topic: plan.topics[0],
      consumerId: `${plan.prefix}.${plan.groups[0]}`,
      sideEffect: async (client, messageId, message) => {
        await client.query(`INSERT INTO "${schema}".effects (seq, message_id) VALUES ($1, $2)`, [message.seq, messageId]);
      },
      // The tracker measures from `t`: here the business commit, known once the writer's COMMIT returned.
      onCommitted: (message) => tracker.onMessage(0, { seq: message.seq, t: committedAt[message.seq] || message.t }),
      onDuplicate: () => suppressed++,
    };
    let pipeline: OutboxPipeline | undefined;
    try {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE; CREATE SCHEMA "${schema}";
        CREATE TABLE "${schema}".orders (seq integer PRIMARY KEY, amount integer NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
        CREATE TABLE "${schema}".effects (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, seq integer NOT NULL, message_id text NOT NULL)`);
      pipeline = await system.outboxPipeline!(round);
      if (mode === 'live') {
        await pipeline.start();
        await ctx.startSampling();
      }
      let next = 0;
      const writer = async () => {
        const client = await pool.connect();
        try {
          for (let seq = next++; seq < n; seq = next++) {
            const message: BenchContent = content(seq, performance.now(), c.size);
            await client.query('BEGIN');
            await client.query(`INSERT INTO "${schema}".orders (seq, amount) VALUES ($1, $2)`, [seq, seq % 1000]);
            await pipeline!.add(client, randomUUID(), message);
            await client.query('COMMIT');
            committedAt[seq] = performance.now();
            if (Number.isNaN(firstCommitAt)) firstCommitAt = committedAt[seq];
            lastCommitAt = committedAt[seq];
          }
        } catch (error) {
          next = n; // the round has failed: the other writers stop too
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        } finally {
          client.release();
        }
      };
      if (c.outboxWritersThread) {
        await runWritersOnThread({
          kind: pipeline.writerKind,
          schema,
          topic: round.topic,
          messages: n,
          writers: c.outboxWriters,
          size: c.size,
          committedAt: committedAt.buffer as SharedArrayBuffer,
        });
        firstCommitAt = Math.min(...committedAt);
        lastCommitAt = Math.max(...committedAt);
      } else await Promise.all(Array.from({ length: c.outboxWriters }, writer));
      const writeRate = n / ((lastCommitAt - firstCommitAt) / 1000);
      let startAt = firstCommitAt;
      if (mode === 'backlog') {
        await ctx.startSampling();
        await pipeline.start();
        // The drain's clock starts once the consumer listens and the relay runs: latency and rate are the drain's.
        startAt = performance.now();
        committedAt.fill(startAt);
      }
      const waited = await tracker.wait(c.roundTimeoutSeconds * 1000);
      const usage = await ctx.stopSampling();
      const end = tracker.delivered === tracker.expected ? tracker.lastAt : performance.now();
      const { p50, p99, max } = tracker.latencies.summary();
      const unpublished = tracker.delivered === tracker.expected ? 0 : await pipeline.unpublished();
      await pipeline.close();
      const notes = [waited, ...(await check(pool, schema, n)), unpublished ? `${unpublished} outbox rows not published` : undefined];
      if (suppressed) notes.push(`${suppressed} redeliveries suppressed by the inbox`);
      return {
        metrics: {
          rate: tracker.delivered / ((end - startAt) / 1000),
          p50,
          p99,
          max,
          writeRate,
          clientCpuPerMessage: usage ? (usage.clientCpuSeconds * 1000) / Math.max(1, tracker.delivered) : NaN,
        },
        messages: Math.max(1, tracker.delivered),
        note: notes.filter(Boolean).join('; ') || undefined,
      };
    } finally {
      await pipeline?.close();
      await system.drop(plan).catch(() => undefined);
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
      await pool.end();
    }
  },
});

function describe(c: BenchConfig, mode: OutboxInboxMode): string {
  const writers =
    `${c.outboxMessages.toLocaleString('en')} business transactions, ${c.outboxWriters} at once (\`--outbox-writers\`), each inserting a business row and an outbox row (${c.size / 1024} KiB of JSON) in one PostgreSQL transaction, into a fresh schema per round on 127.0.0.1:5432, ` +
    (mode === 'backlog'
      ? 'all committed before the pipeline starts; the pipeline then drains the backlog.'
      : c.outboxWritersThread
        ? 'on a worker thread of their own (`--outbox-writers-thread`), while the pipeline runs.'
        : 'on the bench process’s event loop, beside the relay and the consumer, while the pipeline runs.');
  const measures =
    mode === 'backlog'
      ? 'msgs/s = messages / (last side-effect commit − the moment the pipeline had started: consumer subscribed, relay running): its own throughput; latency from that moment to each side-effect commit (a drain: the last message waits for all before it); *business commits/s* = what the writers got alone, before. *client CPU ms/msg* = the bench process’s CPU time (`process.cpuUsage()`, all its threads) during the drain, per message: the relay and the consumer.'
      : 'msgs/s = messages / (last side-effect commit − first business commit); latency from each business commit to its side-effect commit; *business commits/s* = messages / (last − first business commit), what the writers got through PostgreSQL while the pipeline ran (the end-to-end rate cannot exceed it). *client CPU ms/msg* = the bench process’s CPU time (`process.cpuUsage()`, all its threads) from the first write to the last side effect, per message delivered: the writers, the relay and the consumer.';
  return `${writers} The system's relay leases ${RELAY_BATCH} rows at a time (\`FOR UPDATE SKIP LOCKED\`) round after round while it finds rows, and otherwise sleeps until the outbox's NOTIFY, which writers send only while a relay sleeps (a NOTIFY per commit would serialise their commits), publishes them confirmed with the outbox id as message id and marks them published; the consumer reserves each message in the inbox table in the transaction that inserts its side-effect row, and acknowledges after the commit. **MMMQ**: @mmmq/postgres's \`Outbox\`, \`OutboxRelay\` (a \`Producer\` over the publish stream, one atomic batch per lease) and \`MmmqInboxModule\` with \`groupCommit\` (up to ${MMMQ_INBOX_GROUP_COMMIT.maxMessages} deliveries a transaction, ${MMMQ_INBOX_GROUP_COMMIT.maxTransactions} transactions at once on a pool of ${MMMQ_INBOX_GROUP_COMMIT.maxTransactions}) behind an \`inbox: true\` \`MmmqConsumerModule\` pull listener (\`pull.prefetch\` ${CONSUMER_PREFETCH.toLocaleString('en')}, \`concurrency\` and \`workers.max\` ${MMMQ_INBOX_CONCURRENCY}); **RabbitMQ**: the bench's own outbox and inbox tables, shaped like @mmmq/postgres's, a relay with the same loop, persistent messages with publisher confirms to one durable queue of the system's type, and a consumer (prefetch ${CONSUMER_PREFETCH.toLocaleString('en')}) that commits each message in a transaction of its own, ${CONSUMER_CONCURRENCY} at once, with \`INSERT … ON CONFLICT DO NOTHING\` into its inbox table — the consumer one writes by hand; a hand-built batching consumer would commit less often too, and is not measured. ${measures} Afterwards every message must have exactly one side-effect row; any message missing or with two side effects, and the redeliveries RabbitMQ's inbox suppressed, are told in the note. Only MMMQ and RabbitMQ build the pattern here. **No broker** is a reference, not a system: RabbitMQ's tables, relay loop and per-message consumer with the rows handed over in memory, nothing durable between them: what PostgreSQL allows that consumer.`;
}

/** Exactly one side-effect row per message: what is not so, for the note. */
async function check(pool: Pool, schema: string, messages: number): Promise<string[]> {
  const { rows } = await pool.query<{ effects: number; handled: number }>(
    `SELECT count(*)::int AS effects, count(DISTINCT seq)::int AS handled FROM "${schema}".effects`,
  );
  const { effects, handled } = rows[0];
  const notes: string[] = [];
  if (handled < messages) notes.push(`${messages - handled} messages without a side effect`);
  if (effects > handled) notes.push(`${effects - handled} side effects beyond one per message`);
  return notes;
}
