import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeCheckpoint } from '../format/checkpoint-format';
import { readDataRoot, SegmentCache, StoredTopic, TOPICS_DIR } from '../format/data-root-reader';
import { readEnvelope } from '../format/envelope';

/** What the files say about transacted inputs `0 … inputs - 1` of one consumer, each with its two outputs. */
export interface TransactionCheck {
  /** Inputs the consumer's state on disk has settled. */
  settled: number;
  /** Settled, with exactly one copy of each output: committed whole. */
  committed: number;
  /** Counts that must be 0. */
  settledWithoutOutputs: number;
  outputsWithoutSettlement: number;
  duplicateOutputs: number;
  unreadableOutputs: number;
  /** The first problems, for the failure. */
  problems: string[];
}

const PROBLEMS_SHOWN = 10;
/** Outputs are named `in{offset}.{deliveryCount}` by the transacting worker. */
const OUTPUT_ID = /^in(\d+)\.\d+$/;

/**
 * Checks, from the files alone (read after recovery), that every input is either settled with exactly one copy of
 * each of its outputs, or unsettled with none — never one without the other, never twice.
 */
export function checkTransactions(
  rootDir: string,
  input: { topic: string; consumerId: string; count: number },
  outputTopics: readonly string[],
  cache: SegmentCache,
): TransactionCheck {
  const topics = readDataRoot(rootDir, cache);
  const check: TransactionCheck = {
    settled: 0,
    committed: 0,
    settledWithoutOutputs: 0,
    outputsWithoutSettlement: 0,
    duplicateOutputs: 0,
    unreadableOutputs: 0,
    problems: [],
  };
  const problem = (text: string) => check.problems.length < PROBLEMS_SHOWN && check.problems.push(text);
  const copies = outputTopics.map((name) => countCopies(topics.get(name), check, problem));
  const isSettled = settledOffsets(rootDir, input.topic, input.consumerId);
  for (let offset = 0; offset < input.count; offset++) {
    const counts = copies.map((perInput) => perInput.get(offset) ?? 0);
    const settled = isSettled(offset);
    if (settled) check.settled++;
    if (counts.some((count) => count > 1)) {
      check.duplicateOutputs++;
      problem(`input ${offset}: outputs stored ${counts.join(' / ')} times`);
    } else if (settled && counts.every((count) => count === 1)) check.committed++;
    else if (settled) {
      check.settledWithoutOutputs++;
      problem(`input ${offset} is settled, its outputs stored ${counts.join(' / ')} times`);
    } else if (counts.some((count) => count > 0)) {
      check.outputsWithoutSettlement++;
      problem(`input ${offset} is not settled, yet its outputs are stored ${counts.join(' / ')} times`);
    }
  }
  return check;
}

function countCopies(topic: StoredTopic | undefined, check: TransactionCheck, problem: (text: string) => void): Map<number, number> {
  const copies = new Map<number, number>();
  for (const entry of topic?.entries.values() ?? []) {
    const id = 'payload' in entry ? readEnvelope(entry.payload)?.id : undefined;
    const match = id === undefined ? null : OUTPUT_ID.exec(id);
    if (!match) {
      check.unreadableOutputs++;
      problem(`${topic!.name}@${entry.offset}: ${'damage' in entry ? entry.damage : `an entry no transaction wrote (id ${id})`}`);
      continue;
    }
    const offset = Number(match[1]);
    copies.set(offset, (copies.get(offset) ?? 0) + 1);
  }
  return copies;
}

/** Whether the consumer's checkpoint file says an offset is settled (no file yet: nothing is). */
function settledOffsets(rootDir: string, topic: string, consumerId: string): (offset: number) => boolean {
  const path = join(rootDir, TOPICS_DIR, topic, 'checkpoints', `${consumerId}.checkpoint`);
  if (!existsSync(path)) return () => false;
  const state = decodeCheckpoint(readFileSync(path));
  if (typeof state === 'string') throw new Error(`The checkpoint ${path} is damaged: ${state}`);
  return (offset) => offset < state.cursor || state.settled.some(([first, end]) => offset >= first && offset < end);
}
