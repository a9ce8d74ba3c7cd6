import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { waitFor } from '@mmmq/test-support';
import { readDataRoot } from '../format/data-root-reader';
import { BrokerRunner } from '../harness/broker-runner';
import { FAULT_POLL_MS } from '../harness/poll-interval';
import type { ScenarioRun } from '../harness/scenario-run';
import { checkLog } from '../history/log-checker';
import { PublishHistory, type Attempt } from '../history/publish-history';
import { httpRequest } from '../load/http-post';
import { messageJson } from '../load/message-content';
import { publishRecordedBatch } from '../load/recorded-batch';
import { logFailures } from '../report/check-figures';

/** The broker's RLIMIT_NOFILE (soft and hard): its default budget is this less a reserve of 256 for sockets. */
const NOFILE = 512;
/** Topics created before the exhaustion: 2 descriptors each (segment data and index) if every file stayed open. */
const TOPIC_BATCHES = 20;
const TOPICS_PER_BATCH = 100;
/** Connections held open to take the broker's descriptors: more than it has. */
const HOGS = 700;
/** Publishes tried while the descriptors are exhausted: to new topics and to existing ones. */
const NEW_TOPICS_WHILE_EXHAUSTED = 40;
const EXISTING_TOPICS_WHILE_EXHAUSTED = 40;
/** Publishes that must all be acknowledged once the connections are released, without a restart. */
const RECOVERY_TOPICS = 60;
const RECOVERY_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 20_000;

/**
 * Descriptor exhaustion: the broker runs under `prlimit --nofile=512:512` (its storage budget derived from it),
 * creates 2,000 topics — 4,000 files, which held 4,000 descriptors before the budget — then a client takes every
 * descriptor left with idle connections. Publishes meanwhile are answered or refused (503, never a crash), a flush that
 * cannot open a file is retried rather than stopping writes; once the connections go, publishing to old and new
 * topics resumes without a restart, and nothing acknowledged is lost, then or after a restart.
 */
export async function runDescriptorExhaustion(run: ScenarioRun): Promise<void> {
  if (spawnSync('prlimit', ['--version']).status !== 0) {
    const reason = 'prlimit (util-linux) is not installed';
    run.note(`SKIPPED: ${reason}`);
    run.figure('skipped', reason);
    process.stderr.write(`fault suite: descriptor-exhaustion scenario SKIPPED: ${reason}\n`);
    return;
  }
  const history = new PublishHistory();
  const rootDir = join(run.workDir, 'data');
  mkdirSync(rootDir, { recursive: true });
  const runner = new BrokerRunner(
    rootDir,
    join(run.workDir, 'logs'),
    {
      // A flush every 200 ms: several run (and fail) while the descriptors are gone.
      MMMQ_FLUSH_INTERVAL_MS: '200',
      // The hogging connections are all from 127.0.0.1 and idle: neither cap may close them before the test does.
      MMMQ_HTTP_MAX_CONNECTIONS_PER_IP: '100000',
      MMMQ_HTTP_KEEP_ALIVE_TIMEOUT_MS: '600000',
      MMMQ_STREAM_PORT: 'off',
    },
    ['prlimit', `--nofile=${NOFILE}:${NOFILE}`],
  );
  const agents: Agent[] = [];
  try {
    const broker = await runner.start();
    run.figure('RLIMIT_NOFILE of the broker', NOFILE);
    const storage = () => runner.get<StorageView>('/mmmq/storage');
    run.figure('storage descriptor budget (default from the limit)', (await storage()).descriptors.max);

    // 2,000 topics in batches of 100 new topics each: every publish must be acknowledged.
    const topics: string[] = [];
    for (let batch = 0; batch < TOPIC_BATCHES; batch++) {
      const names = Array.from({ length: TOPICS_PER_BATCH }, (_, i) => `fd.b${batch}.t${i}`);
      const acked = await publishBatch(broker.url, history, names, `create-${batch}`);
      run.expectThat(acked, `Creating topics batch ${batch} was not acknowledged`);
      topics.push(...names);
    }
    const created = await storage();
    run.figure('topics created', topics.length);
    run.figure('storage descriptors open after creating them', created.descriptors.open);
    run.figure('storage descriptors peak after creating them', created.descriptors.peak);
    run.expectThat(created.descriptors.peak <= created.descriptors.max, 'The storage layer went past its descriptor budget');

    // Take every descriptor left: connections that publish once, then stay open and idle.
    const hogs = new Agent({ keepAlive: true, maxSockets: HOGS });
    agents.push(hogs);
    const hogged = await Promise.allSettled(
      Array.from({ length: HOGS }, (_, i) => tryPublish(broker.url, history, `fd.hog.t${i}`, `hog-${i}`, hogs)),
    );
    const hogStatuses = countBy(hogged.map((result) => (result.status === 'fulfilled' ? String(result.value) : 'connection failed')));
    run.figure('hogging connections (outcome of their publish)', describeCounts(hogStatuses));
    run.expectThat((hogStatuses['connection failed'] ?? 0) > 0, "The connections never exhausted the broker's descriptors");

    // While exhausted: publishes over the held connections to new and existing topics, and flushes that fail.
    const whileExhausted = await Promise.all([
      ...Array.from({ length: NEW_TOPICS_WHILE_EXHAUSTED }, (_, i) =>
        tryPublish(broker.url, history, `fd.exhausted.t${i}`, `exhausted-new-${i}`, hogs),
      ),
      ...topics
        .slice(0, EXISTING_TOPICS_WHILE_EXHAUSTED)
        .map((topic, i) => tryPublish(broker.url, history, topic, `exhausted-old-${i}`, hogs)),
    ]);
    const exhaustedStatuses = countBy(whileExhausted.map(String));
    run.figure('publishes while exhausted (by status)', describeCounts(exhaustedStatuses));
    const unexpected = Object.keys(exhaustedStatuses).filter((status) => !['200', '503', 'connection failed'].includes(status));
    run.figure('answers other than 200 or 503 while exhausted', unexpected.length, 0);
    run.expectThat(runner.running && broker.child.exitCode === null, 'The broker died while its descriptors were exhausted');

    // Give the connections back; the broker must publish everywhere again by itself.
    const releasedAt = Date.now();
    hogs.destroy();
    const recovery = [...topics.slice(0, RECOVERY_TOPICS / 2), ...Array.from({ length: RECOVERY_TOPICS / 2 }, (_, i) => `fd.after.t${i}`)];
    let round = 0;
    let pending = recovery;
    await waitFor(
      async () => {
        const results = await Promise.all(pending.map((topic) => tryPublish(broker.url, history, topic, `recovery-${round}`)));
        pending = pending.filter((_, i) => results[i] !== 200);
        round++;
        return pending.length === 0;
      },
      {
        deadlineMs: RECOVERY_TIMEOUT_MS,
        pollMs: FAULT_POLL_MS,
        message: () => `publishing to resume (${pending.length} topics still refused)`,
      },
    ).catch(() => undefined);
    run.figure(
      'publishing resumed on every topic, old and new, without a restart (ms)',
      pending.length === 0 ? Date.now() - releasedAt : `not within ${RECOVERY_TIMEOUT_MS}`,
    );
    run.expectThat(
      pending.length === 0,
      `Publishing did not resume within ${RECOVERY_TIMEOUT_MS} ms: ${pending.slice(0, 5).join(', ')} refused`,
    );
    // The flush catches up too: a FLUSHED record covering what was written while it failed.
    const seqAfterRecovery = (await storage()).journal.lastSeq;
    await waitFor(
      async () => {
        const view = await storage();
        return !view.flushRetrying && view.journal.flushedSeq >= seqAfterRecovery;
      },
      {
        deadlineMs: RECOVERY_TIMEOUT_MS,
        pollMs: FAULT_POLL_MS,
        message: 'a flush to cover everything written while descriptors were exhausted',
      },
    );
    run.figure('flushes caught up without a restart', 'yes');

    const beforeStop = checkLog(history, readDataRoot(rootDir));
    run.figure('lost before the restart (acked, not intact)', beforeStop.lost, 0);
    await runner.stop();
    const restarted = await runner.start();
    const idle = await storage();
    run.figure('topics after the restart', idle.topics);
    run.figure('storage descriptors open after the restart (idle)', idle.descriptors.open);
    run.expectThat(idle.descriptors.open <= idle.descriptors.max, 'More storage descriptors open than the budget after the restart');
    run.expectThat(
      await publishBatch(restarted.url, history, topics.slice(-TOPICS_PER_BATCH), 'after-restart'),
      'A batch after the restart was not acknowledged',
    );
    await runner.stop();

    const log = checkLog(history, readDataRoot(rootDir));
    run.figure('publishes acked in total', history.count('acked'));
    run.figure('publishes with an unknown outcome (connection reset)', history.count('unknown'));
    run.figure('lost (acked, not intact)', log.lost, 0);
    run.figure('garbage in the files', log.garbage, 0);
    run.figure('refused publishes stored', log.refusedStored, 0);
    run.expectZero('after descriptor exhaustion and a restart', logFailures(log), log.problems);
    run.expectFiguresMet();
  } finally {
    for (const agent of agents) agent.destroy();
    if (runner.running) await runner.kill();
  }
}

interface StorageView {
  topics: number;
  journal: { lastSeq: number; flushedSeq: number };
  descriptors: { max: number; open: number; peak: number };
  flushRetrying: boolean;
}

/** Publishes one message to each topic in one batch; true when acknowledged (recorded either way). */
async function publishBatch(url: string, history: PublishHistory, topics: readonly string[], label: string): Promise<boolean> {
  const attempts: Attempt[] = topics.map((topic, i) => {
    const id = `${topic}-${label}`;
    const content = Buffer.from(`{"id":"${id}","n":${i}}`);
    return history.begin({ id, topic, content, route: 'http-batch', session: label, sequence: i, cycle: 0 });
  });
  return publishRecordedBatch(url, history, attempts, REQUEST_TIMEOUT_MS);
}

/** Publishes one message; resolves with the status, or 'connection failed' (recorded as an unknown outcome). */
async function tryPublish(
  url: string,
  history: PublishHistory,
  topic: string,
  label: string,
  agent?: Agent,
): Promise<number | 'connection failed'> {
  const id = `${topic}-${label}`;
  const content = Buffer.from(`{"id":"${id}"}`);
  const attempt = history.begin({ id, topic, content, route: 'http', session: id, sequence: 0, cycle: 0 });
  try {
    const answer = await httpRequest(`${url}/mmmq/messages`, {
      body: messageJson(topic, id, content),
      timeoutMs: REQUEST_TIMEOUT_MS,
      agent,
    });
    if (answer.status === 200) history.ack(attempt, (JSON.parse(answer.body) as { offset: number }).offset);
    else history.nack(attempt, answer.status);
    return answer.status;
  } catch {
    history.unknown(attempt);
    return 'connection failed';
  }
}

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

function describeCounts(counts: Record<string, number>): string {
  return Object.entries(counts)
    .map(([key, n]) => `${n} × ${key}`)
    .join(', ');
}
