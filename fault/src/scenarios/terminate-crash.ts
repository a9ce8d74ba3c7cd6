import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { readDataRoot } from '../format/data-root-reader';
import { BrokerRunner } from '../harness/broker-runner';
import type { ScenarioRun } from '../harness/scenario-run';
import { checkLog } from '../history/log-checker';
import { PublishHistory, type Attempt } from '../history/publish-history';
import { httpRequest, JSON_HEADERS } from '../load/http-post';
import { publishRecordedBatch } from '../load/recorded-batch';
import { logFailures } from '../report/check-figures';

const CONSUMER = 'fault-terminator';
const TOPIC = 'term.orders';
/** Published at the start of every cycle, in one batch. */
const MESSAGES_PER_CYCLE = 150;
/** Pull workers fetching and settling concurrently. */
const WORKERS = 3;
const FETCH_MAX = 8;
/** Share of the fetched messages acknowledged instead of terminated. */
const ACK_SHARE = 0.25;
/** The kill comes on the headers of the n-th terminate answered 200 of the cycle, n drawn from this range. */
const KILL_AFTER_TERMINATES: [number, number] = [1, 30];
const REQUEST_TIMEOUT_MS = 20_000;
const PAGE = 1000;

interface Fetched {
  topic: string;
  offset: number;
  lease: string;
  deliveryCount: number;
}

/**
 * Terminate crash: a pull consumer fetches and settles (mostly `terminate`, some `ack`) with
 * several requests in flight, and the broker is SIGKILLed on the headers of a terminate's 200 — the window between
 * the answer and any state write left in the background. After every restart: each message whose terminate was
 * answered has exactly one dead letter and is never delivered again; no message has two dead letters or is delivered
 * again once dead-lettered (whether or not its terminate was answered); no acknowledged message comes back; and at the
 * end every published message is dead-lettered once or acknowledged, nothing lost.
 */
export async function runTerminateCrash(run: ScenarioRun, cycles: number): Promise<void> {
  const rootDir = join(run.workDir, 'data');
  mkdirSync(rootDir, { recursive: true });
  writeFileSync(join(rootDir, 'dispatchers.json'), JSON.stringify([{ consumerId: CONSUMER, pattern: 'term.*' }]));
  const runner = new BrokerRunner(rootDir, join(run.workDir, 'logs'), { MMMQ_STREAM_PORT: 'off' });
  const history = new PublishHistory();
  const state = new SettlementState();
  let killsOnAnswer = 0;
  let killsAfterAll = 0;
  try {
    for (let cycle = 0; cycle < cycles; cycle++) {
      const broker = await runner.start();
      await state.checkDeadLetters(broker.url, `after restart ${cycle}`);
      run.expectThat(await publishBatch(broker.url, history, cycle), `The batch of cycle ${cycle} was not acknowledged`);
      const killAfter = run.random.int(...KILL_AFTER_TERMINATES);
      let killed = false;
      const kill = () => {
        if (killed) return;
        killed = true;
        broker.child.kill('SIGKILL');
      };
      await Promise.all(
        Array.from({ length: WORKERS }, () =>
          consume(broker.url, state, run, () => killed, {
            onTerminateAnswered: () => {
              if (++state.cycleTerminates >= killAfter) {
                killsOnAnswer += killed ? 0 : 1;
                kill();
              }
            },
          }),
        ),
      );
      if (!killed) {
        killsAfterAll++;
        kill();
      }
      await runner.kill();
      state.cycleTerminates = 0;
    }

    // The end: restart, drain what is left (terminating it, answered), restart again; nothing may be missing.
    let broker = await runner.start();
    await state.checkDeadLetters(broker.url, 'after the last kill');
    await consume(broker.url, state, run, () => false, { onTerminateAnswered: () => undefined });
    await runner.stop();
    broker = await runner.start();
    const letters = await state.checkDeadLetters(broker.url, 'after the drain and a clean restart');
    const left = await fetchBatch(broker.url, PAGE);
    await runner.stop();

    const published = history.attempts.filter((attempt) => attempt.outcome === 'acked').map((attempt) => attempt.offset!);
    const missing = published.filter((offset) => !letters.has(offset) && !state.ackSent.has(offset));
    const log = checkLog(history, readDataRoot(rootDir));

    run.figure('SIGKILLs on the headers of a terminate answered 200', killsOnAnswer);
    run.figure('SIGKILLs after the cycle ran out of messages', killsAfterAll);
    run.figure('messages published (acked)', published.length);
    run.figure('terminates answered 200 (messages)', state.terminatedAnswered.size);
    run.figure('acks answered 200 (messages)', state.ackedAnswered.size);
    run.figure('settlements with no answer (killed in flight, messages)', state.unanswered);
    run.figure('deliveries after a restart (redelivered, unsettled before the kill)', state.redeliveries);
    run.figure(
      'dead letters at the end',
      [...letters.values()].reduce((sum, n) => sum + n, 0),
    );
    run.figure('terminated (answered) without a dead letter after a restart', state.terminatedWithoutLetter, 0);
    run.figure('messages with more than one dead letter', state.duplicateLetters, 0);
    run.figure('terminated (answered) delivered again', state.terminatedRedelivered, 0);
    run.figure('dead-lettered delivered again', state.deadLetteredRedelivered, 0);
    run.figure('acknowledged (answered) delivered again or dead-lettered', state.ackedComeBack, 0);
    run.figure('left to deliver after the drain', left.length, 0);
    run.figure('lost (published, neither dead-lettered nor acknowledged)', missing.length, 0);
    run.figure('lost or garbage in the topic files', log.lost + log.garbage, 0);
    run.expectZero('topic files', logFailures(log), log.problems);
    run.expectZero(
      'settlements after the kills',
      {
        'terminated without a dead letter': state.terminatedWithoutLetter,
        'messages with several dead letters': state.duplicateLetters,
        'terminated delivered again': state.terminatedRedelivered,
        'dead-lettered delivered again': state.deadLetteredRedelivered,
        'acknowledged delivered again or dead-lettered': state.ackedComeBack,
      },
      state.problems,
    );
    run.expectFiguresMet();
    run.expectThat(killsOnAnswer > 0, 'No kill landed on a terminate answer', state.problems);
  } finally {
    if (runner.running) await runner.kill();
  }
}

/** What the consumer was told, and what it saw since. */
class SettlementState {
  readonly terminatedAnswered = new Set<number>();
  readonly ackedAnswered = new Set<number>();
  /** Every message an ack was sent for, answered or not (it may be settled). */
  readonly ackSent = new Set<number>();
  /** Dead-lettered as of the last check. */
  deadLettered = new Set<number>();
  readonly problems: string[] = [];
  cycleTerminates = 0;
  unanswered = 0;
  redeliveries = 0;
  terminatedWithoutLetter = 0;
  duplicateLetters = 0;
  terminatedRedelivered = 0;
  deadLetteredRedelivered = 0;
  ackedComeBack = 0;

  problem(text: string): void {
    if (this.problems.length < 20) this.problems.push(text);
  }

  /** Reads every dead letter of the consumer; counts what must not be. Returns original offset → letters. */
  async checkDeadLetters(url: string, when: string): Promise<Map<number, number>> {
    const letters = await deadLetters(url);
    for (const [offset, count] of letters) {
      if (count > 1) {
        this.problem(`${when}: offset ${offset} has ${count} dead letters`);
      }
      if (this.ackedAnswered.has(offset)) {
        this.ackedComeBack++;
        this.problem(`${when}: offset ${offset} was acknowledged (answered) and is dead-lettered`);
      }
    }
    for (const offset of this.terminatedAnswered) {
      if (!letters.has(offset)) {
        this.terminatedWithoutLetter++;
        this.problem(`${when}: offset ${offset} was terminated (answered 200) and has no dead letter`);
      }
    }
    // Counted per message, as of the latest check (a later check does not count the same letters again).
    this.duplicateLetters = [...letters.values()].filter((count) => count > 1).length;
    this.deadLettered = new Set(letters.keys());
    return letters;
  }

  /** A fetched message: it must not be one settled before. */
  delivered(message: Fetched): void {
    if (message.deliveryCount > 1) this.redeliveries++;
    if (this.terminatedAnswered.has(message.offset)) {
      this.terminatedRedelivered++;
      this.problem(`offset ${message.offset} delivered again (deliveryCount ${message.deliveryCount}) after its terminate was answered`);
    } else if (this.deadLettered.has(message.offset)) {
      this.deadLetteredRedelivered++;
      this.problem(`offset ${message.offset} delivered again (deliveryCount ${message.deliveryCount}) although dead-lettered`);
    }
    if (this.ackedAnswered.has(message.offset)) {
      this.ackedComeBack++;
      this.problem(`offset ${message.offset} delivered again after its ack was answered`);
    }
  }
}

/** One worker: fetch, settle (terminate or ack, one or several leases per request), until nothing is left or killed. */
async function consume(
  url: string,
  state: SettlementState,
  run: ScenarioRun,
  killed: () => boolean,
  hooks: { onTerminateAnswered: () => void },
): Promise<void> {
  let emptyFetches = 0;
  while (!killed() && emptyFetches < 2) {
    let messages: Fetched[];
    try {
      messages = await fetchBatch(url, FETCH_MAX);
    } catch {
      return; // killed meanwhile
    }
    if (messages.length === 0) {
      emptyFetches++;
      continue;
    }
    emptyFetches = 0;
    for (const message of messages) state.delivered(message);
    const terminating = messages.filter(() => !run.random.chance(ACK_SHARE));
    const acking = messages.filter((message) => !terminating.includes(message));
    const requests: Array<{ route: 'terminate' | 'ack'; messages: Fetched[] }> = [];
    for (let i = 0; i < terminating.length;) {
      const n = run.random.int(1, 3);
      requests.push({ route: 'terminate', messages: terminating.slice(i, i + n) });
      i += n;
    }
    if (acking.length > 0) requests.push({ route: 'ack', messages: acking });
    await Promise.all(
      requests.map(async ({ route, messages: settled }) => {
        if (route === 'ack') for (const message of settled) state.ackSent.add(message.offset);
        const body: Record<string, unknown> = { leases: settled.map((message) => message.lease) };
        if (route === 'terminate') body.reason = 'poison (fault suite)';
        const answer = await postOnHeaders(`${url}/mmmq/consumers/${CONSUMER}/${route}`, JSON.stringify(body), (status) => {
          // Recorded before the kill: the 200 is the promise the broker made.
          if (status !== 200) return;
          const target = route === 'terminate' ? state.terminatedAnswered : state.ackedAnswered;
          for (const message of settled) target.add(message.offset);
          if (route === 'terminate') hooks.onTerminateAnswered();
        }).catch(() => undefined);
        if (answer === undefined) {
          state.unanswered += settled.length;
          return;
        }
        if (answer.status !== 200) state.problem(`${route} answered ${answer.status}: ${answer.body.slice(0, 200)}`);
        const lost = answer.body === '' ? [] : ((JSON.parse(answer.body) as { lost?: string[] }).lost ?? []);
        for (const message of settled) {
          if (!lost.includes(message.lease)) continue;
          // A lost lease was not settled by this request: take back what the headers recorded.
          state.terminatedAnswered.delete(message.offset);
          state.ackedAnswered.delete(message.offset);
          state.problem(`${route} of offset ${message.offset} answered its lease as lost`);
        }
      }),
    );
  }
}

async function fetchBatch(url: string, max: number): Promise<Fetched[]> {
  const answer = await httpRequest(`${url}/mmmq/consumers/${CONSUMER}/fetch`, {
    body: JSON.stringify({ max, waitMs: 0, ackTimeoutMs: 600_000 }),
    timeoutMs: REQUEST_TIMEOUT_MS,
  });
  if (answer.status !== 200) throw new Error(`fetch answered ${answer.status}: ${answer.body.slice(0, 200)}`);
  return (JSON.parse(answer.body) as { messages: Fetched[] }).messages.filter(
    (message) => message.topic === undefined || message.topic === TOPIC,
  );
}

/** Every dead letter of the consumer (all pages): original offset → how many letters. */
async function deadLetters(url: string): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  let from = 0;
  for (;;) {
    const answer = await httpRequest(`${url}/mmmq/dead-letters/${CONSUMER}?from=${from}&limit=${PAGE}`, {
      method: 'GET',
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
    if (answer.status === 404) return counts;
    if (answer.status !== 200) throw new Error(`GET dead letters answered ${answer.status}: ${answer.body.slice(0, 200)}`);
    const page = JSON.parse(answer.body) as { deadLetters: Array<{ headers: Record<string, unknown> }>; nextFrom: number; total: number };
    for (const letter of page.deadLetters) {
      const offset = Number(letter.headers['mmmq-dlq-original-offset']);
      counts.set(offset, (counts.get(offset) ?? 0) + 1);
    }
    if (page.deadLetters.length === 0 || page.nextFrom >= page.total) return counts;
    from = page.nextFrom;
  }
}

/** Publishes the cycle's messages in one batch; true when acknowledged (recorded either way). */
async function publishBatch(url: string, history: PublishHistory, cycle: number): Promise<boolean> {
  const attempts: Attempt[] = Array.from({ length: MESSAGES_PER_CYCLE }, (_, i) => {
    const id = `term-c${cycle}-m${i}`;
    return history.begin({
      id,
      topic: TOPIC,
      content: Buffer.from(`{"id":"${id}"}`),
      route: 'http-batch',
      session: `c${cycle}`,
      sequence: i,
      cycle,
    });
  });
  return publishRecordedBatch(url, history, attempts, REQUEST_TIMEOUT_MS);
}

/** POSTs JSON; `onHeaders` runs as soon as the status line arrives, before the body is read. */
function postOnHeaders(url: string, body: string, onHeaders: (status: number) => void): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'POST', headers: JSON_HEADERS }, (response) => {
      const status = response.statusCode ?? 0;
      onHeaders(status);
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      // A body cut off by the kill: the status counts, the body is empty.
      response.on('error', () => finish());
      response.on('aborted', () => finish());
      response.on('end', () => finish());
      function finish() {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status, body: safeJson(text) ? text : '' });
      }
    });
    const timer = setTimeout(() => {
      outgoing.destroy();
      reject(new Error(`No answer within ${REQUEST_TIMEOUT_MS} ms`));
    }, REQUEST_TIMEOUT_MS);
    outgoing.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    outgoing.end(body);
  });
}

function safeJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
