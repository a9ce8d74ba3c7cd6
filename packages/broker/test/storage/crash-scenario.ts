import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Topic } from '@mmmq/core';
import type { TopicQueue } from '../../src/storage/topic-queue';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { persistenceOptions } from '../support/topic-fixture';
import { copyCrash, Crash, crashCopy, JOURNAL_FILES, losePower, LostTail, TOPIC_FILES } from './crash-copy';
import { IoSpy } from './io-spy';
import { Ledger, Part, TopicContents } from './ledger';
import { bootContainer, NO_AUTOMATIC_FLUSH, readState, recoverTwice } from './recovered-state';

export const TOPICS = ['alpha', 'beta', 'gamma'];
/** Small segments, so a topic's log spans several, some created since the last flush. */
const SEGMENT_MAX_BYTES = 400;
/** Both kinds of file a power loss can leave short of what the broker wrote. */
export const VOLATILE_FILES = new RegExp(`${TOPIC_FILES.source}|${JOURNAL_FILES.source}`);

/** A broker's storage over three topics, with every I/O call observable; recreated for each test. */
export interface CrashScenario {
  spy: IoSpy;
  container: TopicQueueContainer;
  ledger: Ledger;
  queues: TopicQueue[];
  /** The broker's data directory. */
  dataDir: string;
  /** Copies the data directory now (call it from inside a spy: it is the crash at that point). */
  crash(label: string): Crash;
}

export function useCrashScenario(): CrashScenario {
  const scenario = {} as CrashScenario;
  let root = '';
  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'mmmq-crash-'));
    scenario.dataDir = join(root, 'broker');
    scenario.spy = IoSpy.install();
    scenario.container = TopicQueueContainer.standalone(
      persistenceOptions(scenario.dataDir, { ...NO_AUTOMATIC_FLUSH, segmentMaxBytes: SEGMENT_MAX_BYTES }),
    );
    scenario.queues = await Promise.all(TOPICS.map((name) => scenario.container.getOrCreate(Topic.of(name))));
    scenario.ledger = new Ledger(scenario.container);
    scenario.crash = (label) => crashCopy(scenario.dataDir, join(root, `crash-${label}`), scenario.spy);
  });
  afterEach(async () => {
    await scenario.container.onApplicationShutdown();
    jest.restoreAllMocks();
    rmSync(root, { recursive: true, force: true });
  });
  return scenario;
}

/**
 * A history that leaves every kind of state behind: single- and multi-topic records, some flushed into the topic
 * files and some only in the journal, several commits sharing one record, topics spanning several segments.
 */
export async function writeHistory({ container, ledger, queues }: CrashScenario): Promise<void> {
  const [alpha, beta, gamma] = queues;
  await ledger.fill(queues, 3);
  await ledger.commit([
    [alpha, ledger.next('alpha', 2)],
    [beta, ledger.next('beta', 1)],
    [gamma, ledger.next('gamma', 3)],
  ]);
  await container.journal.flush();
  await Promise.all([
    ledger.commit([
      [alpha, ledger.next('alpha', 1)],
      [gamma, ledger.next('gamma', 2)],
    ]),
    ledger.commit([[beta, ledger.next('beta', 2)]]),
    ledger.commit([
      [beta, ledger.next('beta', 1)],
      [alpha, ledger.next('alpha', 3)],
    ]),
  ]);
  await ledger.fill([gamma, alpha], 2);
}

/** A new multi-topic group touching every topic. */
export function multiTopicGroup({ ledger, queues }: CrashScenario): Part[] {
  return queues.map((queue, i) => [queue, ledger.next(queue.name, i + 1)]);
}

/**
 * Checks a crash recovers to exactly `expected` (every acknowledged entry once, in order, with its bytes; nothing
 * else) when the broker was killed, and when the power failed so that what topic files and journal had not fsync'd
 * is cut, zero-filled or garbage-filled. Recovery must be idempotent (see recoverTwice), and the recovered broker must
 * keep its promises: what it acknowledges next survives the next power loss.
 */
export async function expectRecovery(
  scenario: CrashScenario,
  crash: Crash,
  expected: TopicContents,
  checkpoints?: Record<string, number>,
): Promise<void> {
  for (const lostTail of [undefined, 'cut', 'zeros', 'garbage'] as Array<LostTail | undefined>) {
    const label = lostTail ?? 'kill';
    const twice = copyCrash(crash, `${crash.dir}-${label}`);
    if (lostTail) losePower(twice, lostTail, VOLATILE_FILES);
    const booted = copyCrash(twice, `${twice.dir}-booted`);
    const state = await recoverTwice(twice.dir, TOPICS);
    expect({ lostTail: label, topics: state.topics }).toEqual({ lostTail: label, topics: expected });
    if (checkpoints) expect({ lostTail: label, checkpoints: state.checkpoints }).toEqual({ lostTail: label, checkpoints });
    await expectKeepsPromises(scenario, booted.dir, expected, label);
  }
}

/** Boots on a recovered crash, commits more, loses power, and checks the new entries survived too. */
async function expectKeepsPromises(scenario: CrashScenario, dir: string, expected: TopicContents, label: string): Promise<void> {
  scenario.spy.markDurable(dir);
  const container = await bootContainer(dir, { ...NO_AUTOMATIC_FLUSH, segmentMaxBytes: SEGMENT_MAX_BYTES });
  let crash: Crash;
  const ledger = new Ledger(container, 1_000_000);
  try {
    expect({ lostTail: label, topics: (await readState(container, TOPICS)).topics }).toEqual({ lostTail: label, topics: expected });
    for (const topic of TOPICS) ledger.record(topic, 0, expected[topic]);
    const queues = TOPICS.map((name) => container.get(name) as TopicQueue);
    await ledger.commit(queues.map((queue) => [queue, ledger.next(queue.name, 2)]));
    await ledger.fill(queues, 1);
    crash = crashCopy(dir, `${dir}-then-power-loss`, scenario.spy);
  } finally {
    await container.onApplicationShutdown();
  }
  losePower(crash, 'zeros', VOLATILE_FILES);
  const state = await recoverTwice(crash.dir, TOPICS);
  expect({ afterRecoveryOf: label, topics: state.topics }).toEqual({ afterRecoveryOf: label, topics: ledger.expected(TOPICS) });
}
