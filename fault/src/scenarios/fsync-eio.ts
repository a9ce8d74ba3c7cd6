import { mkdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { readDataRoot } from '../format/data-root-reader';
import { BrokerRunner } from '../harness/broker-runner';
import type { ScenarioRun } from '../harness/scenario-run';
import { checkLog } from '../history/log-checker';
import { PublishHistory, type Attempt } from '../history/publish-history';
import { httpRequest } from '../load/http-post';
import { messageJson } from '../load/message-content';
import { logFailures } from '../report/check-figures';

const TOPIC = 'eio.orders';
/** The broker's test-only fsync fault hook (packages/broker/src/storage/file-handle.ts), named here as documented. */
const FAULT_FSYNC_EIO_VARIABLES = {
  after: 'MMMQ_FAULT_FSYNC_EIO_AFTER',
  count: 'MMMQ_FAULT_FSYNC_EIO_COUNT',
  path: 'MMMQ_FAULT_FSYNC_EIO_PATH',
} as const;
/** Journal files, and topic files (segments, indexes), as the hook's path filter: docs/storage.md's layout. */
const JOURNAL_FILES = `${sep}journal${sep}`;
const TOPIC_FILES = `${sep}topics${sep}`;
/** Journal fsyncs that succeed before the injected failures start (start-up takes a few; publishes the rest). */
const JOURNAL_FSYNCS_BEFORE_EIO = 40;
/** How long publishing is watched after the first refusal when the broker must go on refusing. */
const REFUSING_WATCH_MS = 3_000;
/** How long the broker may take to accept writes again after a single failed journal fsync (documented: 1 s). */
const RESUME_TIMEOUT_MS = 10_000;
const PHASE_TIMEOUT_MS = 20_000;
const REQUEST_TIMEOUT_MS = 20_000;
const BATCH_SIZE = 5;
/** Between a refusal and the producer's next try. */
const REFUSED_PAUSE_MS = 10;

interface Answer {
  sentAt: number;
  answeredAt: number;
  status: number | 'unknown';
}

/**
 * fsync EIO: the broker's file fsyncs fail with EIO through its test-only hook (`MMMQ_FAULT_FSYNC_EIO_*`,
 * packages/broker/src/storage/file-handle.ts; no device-mapper in the test container), under two sequential
 * producers (single publishes and batches), in three phases on one data directory, each followed by a SIGKILL and a
 * restart without the hook (docs/storage.md, "Write failures"):
 *
 * 1. one journal fsync fails: the group it covered is refused with 503 (never ACKed), writes are refused for about
 *    a second, then the journal is reopened and publishing resumes without a restart;
 * 2. every journal fsync fails from some point on (a dying disk): from the first refusal on, nothing is ACKed;
 * 3. one flush fsync of a topic file fails: the broker refuses every write until it is restarted, although the
 *    next fsyncs would succeed (a failed fsync is never retried and then trusted).
 *
 * After each restart everything ACKed is in the topic files at its offset, byte for byte; nothing refused is
 * stored; no garbage.
 */
export async function runFsyncEio(run: ScenarioRun): Promise<void> {
  const rootDir = join(run.workDir, 'data');
  mkdirSync(rootDir, { recursive: true });
  const history = new PublishHistory();
  const logs = join(run.workDir, 'logs');
  const runner = (env: Record<string, string>) =>
    new BrokerRunner(rootDir, logs, { MMMQ_STREAM_PORT: 'off', MMMQ_FLUSH_INTERVAL_MS: '60000', ...env });
  let current: BrokerRunner | undefined;
  const start = async (env: Record<string, string>) => {
    current = runner(env);
    return (await current.start()).url;
  };
  try {
    // 1. One journal fsync fails.
    let url = await start({
      [FAULT_FSYNC_EIO_VARIABLES.after]: String(JOURNAL_FSYNCS_BEFORE_EIO),
      [FAULT_FSYNC_EIO_VARIABLES.count]: '1',
      [FAULT_FSYNC_EIO_VARIABLES.path]: JOURNAL_FILES,
    });
    let firstRefusal: number | undefined;
    let resumedAt: number | undefined;
    const one = await produce(url, history, 'one', (answer) => {
      if (answer.status !== 200 && answer.status !== 'unknown') firstRefusal ??= answer.answeredAt;
      if (answer.status === 200 && firstRefusal !== undefined && answer.sentAt > firstRefusal) resumedAt ??= answer.answeredAt;
      return resumedAt !== undefined;
    });
    run.figure('1. one journal fsync fails: publish requests acked before the failure', ackedBeforeRefusal(one, firstRefusal));
    run.figure('1. publish requests refused (by status)', describeStatuses(one.filter((answer) => answer.status !== 200)));
    run.figure('1. answers other than 200 or 503 (no answer included)', countOther(one), 0);
    run.expectThat(firstRefusal !== undefined, 'Phase 1: the failed journal fsync was acknowledged (no publish refused)');
    run.figure(
      '1. writes accepted again without a restart after (ms)',
      resumedAt !== undefined && firstRefusal !== undefined ? resumedAt - firstRefusal : `not within ${RESUME_TIMEOUT_MS}`,
    );
    run.expectThat(resumedAt !== undefined, `Phase 1: publishing did not resume within ${RESUME_TIMEOUT_MS} ms of the failed fsync`);
    await current!.kill();
    const ackedBefore = history.count('acked');
    url = await start({});
    checkFiles(run, history, rootDir, '1. after SIGKILL and restart');
    await current!.kill();

    // 2. Every journal fsync fails from some point on.
    url = await start({
      [FAULT_FSYNC_EIO_VARIABLES.after]: String(JOURNAL_FSYNCS_BEFORE_EIO),
      [FAULT_FSYNC_EIO_VARIABLES.path]: JOURNAL_FILES,
    });
    const every = await refusingPhase(url, history);
    run.figure(
      '2. every journal fsync fails: publish requests acked before the first refusal',
      ackedBeforeRefusal(every.answers, every.firstRefusal),
    );
    run.figure('2. publish requests refused (by status)', describeStatuses(every.answers.filter((answer) => answer.status !== 200)));
    run.figure('2. answers other than 200 or 503', countOther(every.answers), 0);
    run.figure(`2. publish requests sent after the first refusal and acked (within ${REFUSING_WATCH_MS} ms)`, every.ackedAfter, 0);
    run.expectThat(every.firstRefusal !== undefined, 'Phase 2: no publish was refused although every journal fsync failed');
    await current!.kill();
    url = await start({});
    checkFiles(run, history, rootDir, '2. after SIGKILL and restart');
    // A clean stop: its flush leaves the journal nothing to replay, so phase 3's start-up fsyncs no topic file.
    await current!.stop();

    // 3. One flush fsync of a topic file fails.
    url = await start({
      MMMQ_FLUSH_INTERVAL_MS: '200',
      [FAULT_FSYNC_EIO_VARIABLES.after]: '0',
      [FAULT_FSYNC_EIO_VARIABLES.count]: '1',
      [FAULT_FSYNC_EIO_VARIABLES.path]: TOPIC_FILES,
    });
    const flush = await refusingPhase(url, history);
    run.figure(
      '3. one flush fsync fails: publish requests acked before the first refusal',
      ackedBeforeRefusal(flush.answers, flush.firstRefusal),
    );
    run.figure('3. publish requests refused (by status)', describeStatuses(flush.answers.filter((answer) => answer.status !== 200)));
    run.figure('3. answers other than 200 or 503', countOther(flush.answers), 0);
    run.figure(`3. publish requests sent after the first refusal and acked (within ${REFUSING_WATCH_MS} ms)`, flush.ackedAfter, 0);
    run.expectThat(flush.firstRefusal !== undefined, 'Phase 3: the failed flush fsync did not stop writes');
    await current!.kill();
    url = await start({});
    const resumed = await produce(url, history, 'after', (_answer, answers) => answers.length >= 20);
    run.figure(
      '3. publish requests acked after the restart without the hook (of 20 or more)',
      resumed.filter((answer) => answer.status === 200).length,
    );
    run.expectThat(
      resumed.every((answer) => answer.status === 200),
      'Publishing after the restart without the hook was refused',
    );
    await current!.stop();

    const log = checkLog(history, readDataRoot(rootDir));
    run.figure('messages acked in total', history.count('acked'));
    run.figure('messages acked in phase 1 (before its kill)', ackedBefore);
    run.figure('messages refused in total', history.count('nacked'));
    run.figure('messages with an unknown outcome', history.count('unknown'));
    run.figure('lost (acked, not intact at its offset)', log.lost, 0);
    run.figure('garbage in the files', log.garbage, 0);
    run.figure('refused publishes stored', log.refusedStored, 0);
    run.expectZero('after the three phases and their restarts', logFailures(log), log.problems);
    run.expectFiguresMet();
  } finally {
    if (current?.running) await current.kill();
  }
}

/** Checks the files of the running broker (just restarted, replay done): nothing acked lost, nothing refused stored. */
function checkFiles(run: ScenarioRun, history: PublishHistory, rootDir: string, when: string): void {
  const log = checkLog(history, readDataRoot(rootDir));
  run.figure(`${when}: lost / garbage / refused stored`, `${log.lost} / ${log.garbage} / ${log.refusedStored}`, undefined);
  run.expectZero(when, logFailures(log), log.problems);
}

/** Publishes until the first refusal, then REFUSING_WATCH_MS more; counts ACKs to publishes sent after it. */
async function refusingPhase(
  url: string,
  history: PublishHistory,
): Promise<{ answers: Answer[]; firstRefusal?: number; ackedAfter: number }> {
  let firstRefusal: number | undefined;
  const answers = await produce(url, history, `refusing-${Date.now()}`, (answer) => {
    if (answer.status !== 200 && answer.status !== 'unknown') firstRefusal ??= answer.answeredAt;
    return firstRefusal !== undefined && answer.answeredAt - firstRefusal >= REFUSING_WATCH_MS;
  });
  const ackedAfter = answers.filter((answer) => firstRefusal !== undefined && answer.sentAt > firstRefusal && answer.status === 200).length;
  return { answers, firstRefusal, ackedAfter };
}

/**
 * Two sequential producers (single publishes, batches of BATCH_SIZE) until `done` says so (or PHASE_TIMEOUT_MS).
 * Every answer is recorded in the history: 200 acked, another status refused, no answer unknown.
 */
async function produce(
  url: string,
  history: PublishHistory,
  label: string,
  done: (answer: Answer, answers: Answer[]) => boolean,
): Promise<Answer[]> {
  const answers: Answer[] = [];
  const deadline = Date.now() + PHASE_TIMEOUT_MS;
  let finished = false;
  const producer = async (session: string, size: number) => {
    for (let sequence = 0; !finished && Date.now() < deadline; sequence++) {
      const sentAt = Date.now();
      const status = await publish(url, history, `${label}-${session}`, sequence, size);
      const answer = { sentAt, answeredAt: Date.now(), status };
      answers.push(answer);
      if (done(answer, answers)) finished = true;
      // A refused producer waits a little before the next try (a real one would honour Retry-After).
      else if (status !== 200) await new Promise((resolve) => setTimeout(resolve, REFUSED_PAUSE_MS));
    }
  };
  await Promise.all([producer('single', 1), producer('batch', BATCH_SIZE)]);
  return answers;
}

async function publish(url: string, history: PublishHistory, session: string, sequence: number, size: number): Promise<number | 'unknown'> {
  const attempts: Attempt[] = Array.from({ length: size }, (_, i) => {
    const id = `${session}-${sequence}-${i}`;
    return history.begin({
      id,
      topic: TOPIC,
      content: Buffer.from(`{"id":"${id}","pad":"${'e'.repeat((sequence * 37 + i * 11) % 300)}"}`),
      route: size === 1 ? 'http' : 'http-batch',
      session,
      sequence: sequence * size + i,
      batch: size === 1 ? undefined : `${session}-${sequence}`,
      cycle: 0,
    });
  });
  const single = size === 1;
  const body = single
    ? messageJson(TOPIC, attempts[0].id, attempts[0].content)
    : `{"messages":[${attempts.map((attempt) => messageJson(attempt.topic, attempt.id, attempt.content)).join(',')}]}`;
  try {
    const answer = await httpRequest(`${url}/mmmq/messages${single ? '' : '/batch'}`, { body, timeoutMs: REQUEST_TIMEOUT_MS });
    if (answer.status !== 200) {
      for (const attempt of attempts) history.nack(attempt, answer.status);
      return answer.status;
    }
    const parsed = JSON.parse(answer.body) as { offset?: number; messages?: Array<{ offset: number }> };
    attempts.forEach((attempt, i) => history.ack(attempt, single ? parsed.offset! : parsed.messages![i].offset));
    return 200;
  } catch {
    for (const attempt of attempts) history.unknown(attempt);
    return 'unknown';
  }
}

function ackedBeforeRefusal(answers: Answer[], firstRefusal: number | undefined): number {
  return answers.filter((answer) => answer.status === 200 && (firstRefusal === undefined || answer.answeredAt <= firstRefusal)).length;
}

function countOther(answers: Answer[]): number {
  return answers.filter((answer) => answer.status !== 200 && answer.status !== 503).length;
}

function describeStatuses(answers: Answer[]): string {
  const counts = new Map<string, number>();
  for (const answer of answers) counts.set(String(answer.status), (counts.get(String(answer.status)) ?? 0) + 1);
  return counts.size === 0 ? 'none' : [...counts].map(([status, n]) => `${n} × ${status}`).join(', ');
}
