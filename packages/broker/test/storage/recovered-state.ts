import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { Topic } from '@mmmq/core';
import { ResolvedPersistenceOptions } from '../../src/config/broker-options';
import { Journal } from '../../src/storage/journal/journal';
import type { TopicQueue } from '../../src/storage/topic-queue';
import { TopicQueueBootstrapper } from '../../src/storage/topic-queue-bootstrapper';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { persistenceOptions } from '../support/topic-fixture';
import { fileContents } from './crash-copy';
import type { TopicContents } from './ledger';

/** Flushes only when a test asks (or at close), so a crash point is reached exactly where the test puts it. */
export const NO_AUTOMATIC_FLUSH: Partial<ResolvedPersistenceOptions> = {
  flushIntervalMs: 3_600_000,
  flushBytes: Number.MAX_SAFE_INTEGER,
};

/** What a restarted broker holds: the entries of the topics asked for, and every checkpoint on disk (`topic/id`). */
export interface RecoveredState {
  topics: TopicContents;
  checkpoints: Record<string, number>;
}

/** Topic files and checkpoints: what a replay writes. */
const REPLAYED_FILES = /\.(mmm|idx|checkpoint)$/;

/** A container over `dir`, booted as the broker boots it (journal replayed, every topic on disk restored). */
export async function bootContainer(
  dir: string,
  options: Partial<ResolvedPersistenceOptions> = NO_AUTOMATIC_FLUSH,
): Promise<TopicQueueContainer> {
  const container = TopicQueueContainer.standalone(persistenceOptions(dir, options));
  await new TopicQueueBootstrapper(container).onApplicationBootstrap();
  return container;
}

/** Every entry of the queue as text, a damaged one as its error's class name. */
export async function readEntries(queue: TopicQueue): Promise<string[]> {
  const entries: string[] = [];
  while (entries.length < queue.tailOffset) {
    const batch = await queue.peekMany(entries.length, 1000);
    if (batch.length === 0) throw new Error(`Topic ${queue.name} returned nothing at offset ${entries.length}`);
    for (const entry of batch) entries.push(entry instanceof Error ? entry.name : entry.toString());
  }
  return entries;
}

export async function readState(container: TopicQueueContainer, topics: readonly string[]): Promise<RecoveredState> {
  const state: RecoveredState = { topics: {}, checkpoints: {} };
  for (const name of topics) {
    const queue = await container.getOrCreate(Topic.of(name));
    state.topics[name] = await readEntries(queue);
  }
  for (const queue of container.list()) {
    for (const id of await queue.checkpoints.consumerIds()) {
      state.checkpoints[`${queue.name}/${id}`] = (await queue.checkpoints.open(id, 0, queue.tailOffset)).offset;
    }
  }
  return state;
}

/** Boots a container over `dir`, reads its state, and shuts it down. */
export async function recoverState(dir: string, topics: readonly string[]): Promise<RecoveredState> {
  const container = await bootContainer(dir);
  try {
    return await readState(container, topics);
  } finally {
    await container.onApplicationShutdown();
  }
}

/**
 * Recovers `dir` and checks that recovery is idempotent: a clean restart after it changes no topic file, and a
 * crash right after the replay wrote the topic files (before the journal recorded that) replays the same records
 * over its own output with the same result, byte for byte. Returns the state of the first recovery.
 */
export async function recoverTwice(dir: string, topics: readonly string[]): Promise<RecoveredState> {
  const replayAgain = `${dir}-replay-again`;
  const open = Journal.prototype.open;
  const opening = jest.spyOn(Journal.prototype, 'open').mockImplementationOnce(async function (this: Journal, start) {
    cpSync(dir, replayAgain, { recursive: true });
    return open.call(this, start);
  });
  const first = await recoverState(dir, topics);
  opening.mockRestore();
  const filesAfterFirst = fileContents(join(dir, 'topics'), REPLAYED_FILES);

  expect(await recoverState(dir, topics)).toEqual(first);
  expect(fileContents(join(dir, 'topics'), REPLAYED_FILES)).toEqual(filesAfterFirst);
  expect(await recoverState(replayAgain, topics)).toEqual(first);
  expect(fileContents(join(replayAgain, 'topics'), REPLAYED_FILES)).toEqual(filesAfterFirst);
  return first;
}
