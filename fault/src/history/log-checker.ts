import { envelopeCarries, readEnvelope } from '../format/envelope';
import type { StoredTopic } from '../format/data-root-reader';
import { BatchCheck, checkBatches } from './batch-checker';
import type { Attempt, PublishHistory } from './publish-history';

/** What the files hold, compared with what the producers were told. Every count but the last three must be 0. */
export interface LogCheck {
  storedEntries: number;
  /** Acknowledged publishes not found, byte for byte, at their offset. */
  lost: number;
  /** Stored entries that do not read (bad frame, CRC) or are not something that was published to that topic. */
  garbage: number;
  /** Copies of a message beyond what its acknowledged and unknown attempts can explain. */
  duplicates: number;
  /** Messages refused (nacked) on every attempt, yet stored. */
  refusedStored: number;
  /** Messages of one producer session stored out of the order they were sent in. */
  orderViolations: number;
  /** Extra copies explained by a producer retry of an unknown outcome (allowed). */
  retryCopies: number;
  unknownRecovered: number;
  unknownAbsent: number;
  /** Unacknowledged batches stored whole, not at all, or in part (must not be). */
  batches: BatchCheck;
  problems: string[];
}

const MAX_PROBLEMS = 25;

/** Checks every topic the history published to against the files, as read by the checker's own decoder. */
export function checkLog(history: PublishHistory, topics: Map<string, StoredTopic>): LogCheck {
  const check: Omit<LogCheck, 'batches'> = {
    storedEntries: 0,
    lost: 0,
    garbage: 0,
    duplicates: 0,
    refusedStored: 0,
    orderViolations: 0,
    retryCopies: 0,
    unknownRecovered: 0,
    unknownAbsent: 0,
    problems: [],
  };
  const problem = (text: string) => {
    if (check.problems.length < MAX_PROBLEMS) check.problems.push(text);
  };
  const published = new Set(history.attempts.map((attempt) => attempt.topic));
  /** id → stored copies */
  const copies = new Map<string, number>();
  /** `topic@offset` → id of the published message stored there */
  const storedIds = new Map<string, string>();
  for (const name of published) {
    const topic = topics.get(name);
    if (!topic) continue;
    const lastSequence = new Map<string, number>();
    for (let offset = 0; offset < topic.tailOffset; offset++) {
      const entry = topic.entries.get(offset);
      if (!entry) continue; // a gap between segments: nothing served there
      check.storedEntries++;
      if ('damage' in entry) {
        check.garbage++;
        problem(`${name}@${offset}: ${entry.damage}`);
        continue;
      }
      const attempt = matchingAttempt(history, name, entry.payload);
      if (!attempt) {
        check.garbage++;
        problem(`${name}@${offset}: holds ${preview(entry.payload)}, which was never published to ${name}`);
        continue;
      }
      copies.set(attempt.id, (copies.get(attempt.id) ?? 0) + 1);
      storedIds.set(`${name}@${offset}`, attempt.id);
      if (history.attemptsOf(attempt.id).length === 1) {
        const last = lastSequence.get(attempt.session) ?? -1;
        if (attempt.sequence <= last) {
          check.orderViolations++;
          problem(`${name}@${offset}: ${attempt.id} (send #${attempt.sequence} of ${attempt.session}) after send #${last}`);
        }
        lastSequence.set(attempt.session, attempt.sequence);
      }
    }
  }
  for (const attempt of history.attempts) {
    if (attempt.outcome !== 'acked') continue;
    // A retry carries the same id and content, so the stored id identifies the message byte for byte.
    if (storedIds.get(`${attempt.topic}@${attempt.offset}`) !== attempt.id) {
      const entry = topics.get(attempt.topic)?.entries.get(attempt.offset ?? -1);
      check.lost++;
      const found = !entry ? 'nothing' : 'damage' in entry ? entry.damage : preview(entry.payload);
      problem(`LOST: ${attempt.id} acked at ${attempt.topic}@${attempt.offset} (cycle ${attempt.cycle}); found ${found}`);
    }
  }
  for (const id of history.ids) {
    const attempts = history.attemptsOf(id);
    const stored = copies.get(id) ?? 0;
    const mayStore = attempts.filter((attempt) => attempt.outcome === 'acked' || attempt.outcome === 'unknown').length;
    if (stored > 0 && mayStore === 0) {
      check.refusedStored++;
      problem(`${id} was refused on every attempt (${attempts.map((a) => a.status).join(', ')}) but is stored`);
    } else if (stored > mayStore) {
      check.duplicates += stored - mayStore;
      problem(`${id} is stored ${stored} times; ${mayStore} attempt(s) could have stored it`);
    } else if (stored > 1) {
      check.retryCopies += stored - 1;
    }
    const unknown = attempts.filter((attempt) => attempt.outcome === 'unknown').length;
    if (unknown > 0 && attempts.every((attempt) => attempt.outcome !== 'acked')) {
      if (stored > 0) check.unknownRecovered++;
      else check.unknownAbsent++;
    }
  }
  return { ...check, batches: checkBatches(history, copies, problem) };
}

/**
 * Stored payloads already matched (a segment that did not change is read back as the same Buffers): the first
 * matching attempt of a payload stays the first, since attempts are only ever added after it.
 */
const matched = new WeakMap<Buffer, { history: PublishHistory; topic: string; attempt: Attempt }>();

/** The attempt whose id, topic and exact content bytes a stored payload carries. */
export function matchingAttempt(history: PublishHistory, topic: string, payload: Buffer): Attempt | undefined {
  const known = matched.get(payload);
  if (known?.history === history && known.topic === topic) return known.attempt;
  const fields = readEnvelope(payload);
  if (!fields || fields.topic !== topic) return undefined;
  const attempt = history
    .attemptsOf(fields.id)
    .find((candidate) => candidate.topic === topic && envelopeCarries(payload, candidate.content));
  if (attempt) matched.set(payload, { history, topic, attempt });
  return attempt;
}

export function preview(bytes: Buffer): string {
  const text = bytes.subarray(0, 80).toString('utf8');
  return JSON.stringify(bytes.length > 80 ? `${text}…` : text);
}
