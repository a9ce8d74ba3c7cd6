import { mkdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RecordingConsumer } from '../consumer/recording-consumer';
import { readDataRoot } from '../format/data-root-reader';
import { BrokerRunner } from '../harness/broker-runner';
import type { ScenarioRun } from '../harness/scenario-run';
import { drained } from '../harness/drained';
import { mountSmallFilesystem, waitFor } from '@mmmq/test-support';
import { FAULT_POLL_MS } from '../harness/poll-interval';
import { checkDeliveries, inspectDelivery } from '../history/delivery-checker';
import { checkLog } from '../history/log-checker';
import { PublishHistory } from '../history/publish-history';
import { publishOneEach } from '../load/fill-topics';
import { MixedLoad } from '../load/mixed-load';
import { deliveryFailures, logFailures } from '../report/check-figures';

const TOPICS = ['disk.full-a', 'disk.full-b'];
const NEW_TOPIC = 'disk.created-while-full';
/** Freed once the disk is full, to see publishing resume. */
const FILLER_BYTES = 1536 * 1024;
const SEGMENT_MAX_BYTES = 1024 * 1024;
/** Refusals to collect before the disk counts as full, then how long to keep publishing into it. */
const REFUSALS_WHEN_FULL = 50;
const KEEP_PUBLISHING_WHEN_FULL_MS = 1_500;
const FILL_TIMEOUT_MS = 120_000;
const RESUME_TIMEOUT_MS = 15_000;
const RESUME_POLL_MS = 100;
/** Pushes must catch up without a restart once space is back (backoff between retries is at most 60 s). */
const PUSH_RESUME_TIMEOUT_MS = 20_000;
const CONSUMER_ID = 'fault-checker';
const DISK_FULL_STATUS = 503;

/**
 * Disk full: the data root on a small file system, publish (HTTP, batch, stream) until the broker refuses with
 * 503, keep publishing into the full disk, check nothing acknowledged is missing or half-written, free space,
 * see publishing resume, then SIGKILL, restart and check again, files and pushes.
 */
export async function runDiskFull(run: ScenarioRun): Promise<void> {
  const disk = mountSmallFilesystem(run.workDir, run.sizes.diskFullBytes);
  if (!disk.mounted) {
    run.note(`SKIPPED: ${disk.reason}`);
    run.figure('skipped', disk.reason);
    process.stderr.write(`fault suite: disk-full scenario SKIPPED: ${disk.reason}\n`);
    return;
  }
  const history = new PublishHistory();
  const consumer = new RecordingConsumer((message, body) => inspectDelivery(history, message, body));
  const rootDir = join(disk.dir, 'data');
  // The disk guard off: this scenario is about the disk really filling (ENOSPC), the path behind the guard.
  const runner = new BrokerRunner(rootDir, join(run.workDir, 'logs'), {
    MMMQ_SEGMENT_MAX_BYTES: String(SEGMENT_MAX_BYTES),
    MMMQ_DISK_MIN_FREE_BYTES: '0',
  });
  try {
    mkdirSync(rootDir, { recursive: true });
    await consumer.start();
    writeFileSync(join(rootDir, 'dispatchers.json'), JSON.stringify([consumer.dispatcher(CONSUMER_ID)]));
    const filler = join(disk.dir, 'filler');
    writeFileSync(filler, Buffer.alloc(FILLER_BYTES, 1));
    run.figure('file system', disk.kind);
    const broker = await runner.start();

    const load = new MixedLoad({
      httpUrl: broker.url,
      streamUrl: broker.streamUrl,
      history,
      random: run.random.fork('load'),
      cycle: 0,
      topics: TOPICS,
      clients: { http: 2, batch: 1, stream: 1 },
      pauseAfterNackMs: 20,
    });
    await waitFor(() => history.count('nacked') >= REFUSALS_WHEN_FULL, {
      deadlineMs: FILL_TIMEOUT_MS,
      message: 'the broker to refuse publishes on a full disk',
      pollMs: FAULT_POLL_MS,
    });
    await new Promise((resolve) => setTimeout(resolve, KEEP_PUBLISHING_WHEN_FULL_MS));
    await load.stop();
    const newTopic = await publishOneEach(broker.url, history, [NEW_TOPIC], 0);
    const free = statfsSync(disk.dir);
    run.figure('free bytes left when full', free.bavail * free.bsize);
    const refusals = history.attempts.filter((attempt) => attempt.outcome === 'nacked');
    const statuses = countBy(refusals.map((attempt) => String(attempt.status)));
    run.figure('publishes acked before and while full', history.count('acked'));
    run.figure(
      'publishes refused while full (by status)',
      Object.entries(statuses)
        .map(([s, n]) => `${n} × ${s}`)
        .join(', '),
    );
    run.figure('publishes unknown', history.count('unknown'), 0);
    run.figure(`refusals other than ${DISK_FULL_STATUS}`, refusals.filter((a) => a.status !== DISK_FULL_STATUS).length, 0);
    run.figure(
      'publish to a new topic while full',
      newTopic ? 'acked' : `refused (${history.attemptsOf(`${NEW_TOPIC}-after-0`)[0]?.status})`,
    );
    const whileFull = checkLog(history, readDataRoot(rootDir));
    run.figure('lost while full (acked, not intact)', whileFull.lost, 0);
    run.figure('half-written or foreign entries while full', whileFull.garbage, 0);
    run.figure('refused publishes stored', whileFull.refusedStored, 0);
    run.expectZero('while the disk was full', logFailures(whileFull), whileFull.problems);

    rmSync(filler);
    const freedAt = Date.now();
    let resumed = false;
    for (let round = 0; !resumed && Date.now() - freedAt < RESUME_TIMEOUT_MS; round++) {
      resumed = (await publishOneEach(broker.url, history, [...TOPICS, NEW_TOPIC], round + 1)) === TOPICS.length + 1;
      if (!resumed) await new Promise((resolve) => setTimeout(resolve, RESUME_POLL_MS));
    }
    run.figure(
      'publishing resumed on every topic after space was freed (ms)',
      resumed ? Date.now() - freedAt : `not within ${RESUME_TIMEOUT_MS}`,
    );
    run.expectThat(resumed, `Publishing did not resume on every topic within ${RESUME_TIMEOUT_MS} ms of freeing ${FILLER_BYTES} bytes`);

    const pushesCaughtUp = () => checkDeliveries(history, consumer.deliveries, readDataRoot(rootDir));
    await waitFor(() => pushesCaughtUp().ackedNotDelivered === 0, {
      deadlineMs: PUSH_RESUME_TIMEOUT_MS,
      message: 'pushes',
      pollMs: FAULT_POLL_MS,
    }).catch(() => undefined);
    const behind = pushesCaughtUp();
    run.figure(`acked but not pushed ${PUSH_RESUME_TIMEOUT_MS / 1000} s after space was freed (no restart)`, behind.ackedNotDelivered, 0);

    await runner.kill();
    consumer.epoch = 1;
    await runner.start();
    await drained(runner, CONSUMER_ID, [...TOPICS, NEW_TOPIC], 60_000);
    await runner.stop();
    const topics = readDataRoot(rootDir);
    const log = checkLog(history, topics);
    const pushes = checkDeliveries(history, consumer.deliveries, topics);
    run.figure('publishes acked in total', history.count('acked'));
    run.figure('lost after SIGKILL and restart', log.lost, 0);
    run.figure('garbage in the files after restart', log.garbage, 0);
    run.figure('garbage served to the consumer', pushes.garbageServed, 0);
    run.figure('acked but never pushed', pushes.ackedNotDelivered, 0);
    run.expectZero('after SIGKILL and restart (files)', logFailures(log), log.problems);
    run.expectZero('after SIGKILL and restart (pushes)', deliveryFailures(pushes), pushes.problems);
    run.expectZero('pushes after space was freed, without a restart', { ackedNotPushed: behind.ackedNotDelivered }, behind.problems);
    run.expectFiguresMet();
  } finally {
    if (runner.running) await runner.kill();
    await consumer.stop();
    disk.unmount();
  }
}

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
