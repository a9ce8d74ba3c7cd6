import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { httpCatalogue, HostileCase } from '../bad-input/http-catalogue';
import { exchange, RawExchange } from '../bad-input/raw-exchange';
import { answerComplete } from '../bad-input/raw-request';
import { replyStatuses, streamCatalogue } from '../bad-input/stream-catalogue';
import { snapshotTree, treeChanges } from '../bad-input/tree-snapshot';
import { RecordingConsumer } from '../consumer/recording-consumer';
import { decodeCheckpoint } from '../format/checkpoint-format';
import { BrokerRunner } from '../harness/broker-runner';
import type { ScenarioRun } from '../harness/scenario-run';
import { waitFor } from '@mmmq/test-support';
import { FAULT_POLL_MS } from '../harness/poll-interval';
import { httpRequest } from '../load/http-post';

export type HttpAdapter = 'express' | 'fastify';

/** An answer (or a close) must come within this long; a hostile request is never worth waiting for. */
export const ANSWER_DEADLINE_MS = 5_000;
/**
 * The broker under test gets shorter head and request timeouts than its defaults (10 s, 30 s), so that the
 * stalled clients are judged in seconds; the defaults themselves are tested in packages/broker.
 */
const SHORT_TIMEOUTS = { MMMQ_HTTP_HEADERS_TIMEOUT_MS: '2000', MMMQ_HTTP_REQUEST_TIMEOUT_MS: '5000' };
/**
 * A stalled client must be answered (408) or disconnected within this long: the broker's header, body and
 * idle timeouts (docs/security.md § Timeouts and connection caps; {@link SHORT_TIMEOUTS} here) must be shorter.
 */
export const SLOW_CLIENT_DEADLINE_MS = 15_000;
/** A restart after hostile input must be ready within this long (a backtracking pattern once hung start-up). */
const RESTART_DEADLINE_MS = 20_000;
const VICTIM_ID = 'victim';
/** Holds the victim's one message (its checkpoint and dead letters give the consumer routes something to read). */
const VICTIM_TOPIC = 'victim.topic';
/** What hostile publishes name when only something else is wrong: nobody subscribes, so nothing moves after them. */
const TARGET_TOPIC = 'target.topic';

/** What one adapter did with the catalogue. */
export interface AdapterOutcome {
  adapter: HttpAdapter;
  httpRequests: number;
  streamConnections: number;
  statuses: Record<string, number>;
  /** Each a requirement of 0. */
  accepted: number;
  serverErrors: number;
  hangs: number;
  closedWithoutAnswer: number;
  changedDataRoot: number;
  crashes: number;
  filesOutsideDataRoot: number;
  failures: string[];
}

/**
 * Sends the hostile catalogue (HTTP routes, then the publish stream, then stalled clients, then the hostile
 * pattern probe) to a broker on one adapter, checking after every request that the answer was a 4xx in time and
 * that the data root did not change, and at the end that nothing was created outside the data root.
 */
export async function runBadInput(run: ScenarioRun, adapter: HttpAdapter): Promise<AdapterOutcome> {
  const base = join(run.workDir, adapter);
  // Nested, so that a traversal of a few levels still lands inside the scanned work directory.
  const rootDir = join(base, 'a', 'b', 'data');
  const logDir = join(base, 'logs');
  mkdirSync(rootDir, { recursive: true });
  const marker = `${run.seed}-${adapter}`;
  const outcome: AdapterOutcome = {
    adapter,
    httpRequests: 0,
    streamConnections: 0,
    statuses: {},
    accepted: 0,
    serverErrors: 0,
    hangs: 0,
    closedWithoutAnswer: 0,
    changedDataRoot: 0,
    crashes: 0,
    filesOutsideDataRoot: 0,
    failures: [],
  };
  const victim = new RecordingConsumer();
  await victim.start();
  const victimDispatcher = { consumerId: VICTIM_ID, host: victim.url, pattern: 'victim.**' };
  writeFileSync(join(rootDir, 'dispatchers.json'), JSON.stringify([victimDispatcher]));
  const runner = new BrokerRunner(rootDir, logDir, { MMMQ_HTTP_ADAPTER: adapter, ...SHORT_TIMEOUTS });
  const outside = () => snapshotTree(run.workDir, [rootDir, logDir]);
  const fail = (text: string) => outcome.failures.push(text);
  try {
    let broker = await runner.start();
    await legitimate(broker.url, 'POST', '/mmmq/messages', `{"topic":"${VICTIM_TOPIC}","content":{"setup":true}}`);
    // It exists, so that its upper-case twin is refused.
    await legitimate(broker.url, 'POST', '/mmmq/messages', `{"topic":"${TARGET_TOPIC}","content":{"setup":true}}`);
    await waitFor(() => checkpointOf(rootDir) === 1, {
      deadlineMs: 10_000,
      message: 'the victim consumer checkpoint to reach 1',
      pollMs: FAULT_POLL_MS,
    });
    const outsideBefore = outside();
    const port = Number(new URL(broker.url).port);
    const context = { port, victimId: VICTIM_ID, victimHost: victim.url, victimTopic: TARGET_TOPIC, marker };
    const cases = httpCatalogue(context);

    const judge = async (hostile: HostileCase, result: RawExchange, before: Map<string, string>, restore = true) => {
      const label = `[${hostile.group}] ${hostile.name} (${hostile.route})`;
      const status = result.status;
      if (status !== undefined) outcome.statuses[status] = (outcome.statuses[status] ?? 0) + 1;
      if (status !== undefined && status < 400) {
        outcome.accepted++;
        fail(`${label}: accepted with ${status}`);
      } else if (status !== undefined && status >= 500) {
        outcome.serverErrors++;
        fail(`${label}: ${status} ${bodyOf(result.received)}`);
      } else if (status === undefined && result.timedOut) {
        outcome.hangs++;
        fail(`${label}: no answer and no close within ${hostile.slow ? SLOW_CLIENT_DEADLINE_MS : ANSWER_DEADLINE_MS} ms`);
      } else if (status === undefined && !hostile.mayClose) {
        outcome.closedWithoutAnswer++;
        fail(`${label}: connection closed without an answer`);
      }
      const changes = treeChanges(before, snapshotTree(rootDir));
      if (changes.length > 0) {
        outcome.changedDataRoot++;
        // An accepted request changing the data root is no news; a refused one that changes it is.
        if (status === undefined || status >= 400) fail(`${label}: changed the data root (${changes.slice(0, 3).join(', ')})`);
      }
      if (restore && status !== undefined && status < 300 && hostile.route.includes('/mmmq/dispatchers')) {
        await restoreDispatchers(broker.url, victimDispatcher);
        await waitFor(() => checkpointOf(rootDir) === 1, {
          deadlineMs: 10_000,
          message: 'the victim to settle after its dispatcher was restored',
          pollMs: FAULT_POLL_MS,
        });
      }
      if (runner.current.child.exitCode !== null || runner.current.child.signalCode !== null) {
        outcome.crashes++;
        fail(`${label}: the broker exited (see its log)`);
        await runner.kill().catch(() => undefined);
        broker = await runner.start();
      }
    };

    for (const hostile of cases.filter((c) => !c.slow && c.group !== 'hostile pattern')) {
      const before = snapshotTree(rootDir);
      const result = await exchange(port, hostile.chunks, {
        deadlineMs: ANSWER_DEADLINE_MS,
        endAfterSend: hostile.endAfterSend,
        done: answerComplete,
      });
      outcome.httpRequests++;
      await judge(hostile, result, before);
    }

    const streamPort = Number(new URL(broker.streamUrl ?? 'mmmq://127.0.0.1:0').port);
    for (const hostile of streamCatalogue(TARGET_TOPIC)) {
      const before = snapshotTree(rootDir);
      const expected = Math.max(hostile.replies, 1);
      const result = await exchange(streamPort, hostile.chunks, {
        deadlineMs: hostile.clientCloses ? 1_000 : ANSWER_DEADLINE_MS,
        done: (received) => replyStatuses(received).length >= expected,
      });
      outcome.streamConnections++;
      const label = `[publish stream] ${hostile.name}`;
      const statuses = replyStatuses(result.received);
      for (const status of statuses) outcome.statuses[`stream ${status}`] = (outcome.statuses[`stream ${status}`] ?? 0) + 1;
      const wrong = statuses.filter((status) => status < 400 || status >= 500);
      if (wrong.some((status) => status < 400)) outcome.accepted++;
      if (wrong.some((status) => status >= 500)) outcome.serverErrors++;
      if (wrong.length > 0) fail(`${label}: answered ${[...new Set(wrong)].join(', ')}`);
      if (!hostile.clientCloses && result.timedOut && statuses.length < hostile.replies) {
        outcome.hangs++;
        fail(`${label}: ${statuses.length} of ${hostile.replies} answers within ${ANSWER_DEADLINE_MS} ms`);
      }
      if (!hostile.clientCloses && hostile.replies === 0 && !result.closed && statuses.length === 0) {
        outcome.hangs++;
        fail(`${label}: neither refused nor closed within ${ANSWER_DEADLINE_MS} ms`);
      }
      const changes = treeChanges(before, snapshotTree(rootDir));
      if (changes.length > 0) {
        outcome.changedDataRoot++;
        fail(`${label}: changed the data root (${changes.slice(0, 3).join(', ')})`);
      }
    }

    // Stalled clients, all at once: each must be answered or cut off by the broker's timeouts.
    const slow = cases.filter((c) => c.slow);
    const before = snapshotTree(rootDir);
    const results = await Promise.all(
      slow.map((hostile) => exchange(port, hostile.chunks, { deadlineMs: SLOW_CLIENT_DEADLINE_MS, done: answerComplete })),
    );
    outcome.httpRequests += slow.length;
    for (const [i, hostile] of slow.entries()) await judge(hostile, results[i], before);

    // A backtracking pattern, then a publish it would be matched against, then a restart.
    for (const hostile of cases.filter((c) => c.group === 'hostile pattern')) {
      const beforePattern = snapshotTree(rootDir);
      const result = await exchange(port, hostile.chunks, { deadlineMs: ANSWER_DEADLINE_MS, done: answerComplete });
      outcome.httpRequests++;
      // Left registered if wrongly accepted: the probe below is what it would do to the broker.
      await judge(hostile, result, beforePattern, false);
    }
    const probe = await httpRequest(`${broker.url}/mmmq/messages`, {
      body: `{"topic":"${'a'.repeat(100)}","content":1}`,
      timeoutMs: ANSWER_DEADLINE_MS,
    }).catch((error: Error) => ({ status: 0, body: error.message }));
    outcome.httpRequests++;
    if (probe.status !== 200) {
      outcome.hangs += probe.status === 0 ? 1 : 0;
      fail(`[hostile pattern] a publish to a topic of 100 a's after the hostile patterns: ${probe.status || probe.body}`);
    }
    await runner.kill();
    const restart = await runner.startWithin(RESTART_DEADLINE_MS);
    if (!restart) {
      outcome.hangs++;
      fail(`[hostile pattern] the broker was not ready within ${RESTART_DEADLINE_MS} ms of a restart on the same data root`);
    } else {
      broker = restart;
      const alive = await httpRequest(`${broker.url}/mmmq/subscriptions`, { method: 'GET', timeoutMs: ANSWER_DEADLINE_MS }).catch(
        () => undefined,
      );
      if (alive?.status !== 200) fail(`the broker did not answer GET /mmmq/subscriptions after the catalogue (${alive?.status})`);
    }
    const created = treeChanges(outsideBefore, outside());
    const strays = findMarkers(marker);
    outcome.filesOutsideDataRoot = created.length + strays.length;
    for (const path of [...created, ...strays]) fail(`file outside the data root: ${path}`);
  } finally {
    if (runner.running) await runner.kill();
    await victim.stop();
    writeFileSync(join(base, 'failures.txt'), outcome.failures.join('\n'));
  }
  return outcome;
}

/** A request the checker means: JSON, and it must succeed. */
async function legitimate(url: string, method: string, path: string, body?: string): Promise<string> {
  const answer = await httpRequest(`${url}${path}`, { method, body, timeoutMs: ANSWER_DEADLINE_MS });
  if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.body.slice(0, 200)}`);
  return answer.body;
}

/** After a hostile dispatcher change was wrongly accepted: back to the victim alone, so later cases start equal. */
async function restoreDispatchers(url: string, victim: { consumerId: string; host: string; pattern: string }): Promise<void> {
  const list = JSON.parse(await legitimate(url, 'GET', '/mmmq/dispatchers')) as Array<{ consumerId: string }>;
  for (const { consumerId } of list) {
    if (consumerId !== victim.consumerId) await legitimate(url, 'DELETE', `/mmmq/dispatchers/${encodeURIComponent(consumerId)}`);
  }
  await legitimate(url, 'PUT', `/mmmq/dispatchers/${victim.consumerId}`, JSON.stringify({ host: victim.host, pattern: victim.pattern }));
}

function checkpointOf(rootDir: string): number | undefined {
  const path = join(rootDir, 'topics', VICTIM_TOPIC, 'checkpoints', `${VICTIM_ID}.checkpoint`);
  if (!existsSync(path)) return undefined;
  const state = decodeCheckpoint(readFileSync(path));
  return typeof state === 'string' ? undefined : state.cursor;
}

/** Names carrying the marker in the places a traversal could reach beyond the work directory. */
function findMarkers(marker: string): string[] {
  const places = [tmpdir(), process.cwd(), resolve(__dirname, '../../..'), '/'];
  return places.flatMap((place) => {
    try {
      return readdirSync(place)
        .filter((name) => name.includes(marker))
        .map((name) => join(place, name));
    } catch {
      return [];
    }
  });
}

function bodyOf(received: Buffer): string {
  const text = received.toString('utf8');
  return text.slice(text.indexOf('\r\n\r\n') + 4, text.indexOf('\r\n\r\n') + 160).replace(/\s+/g, ' ');
}
