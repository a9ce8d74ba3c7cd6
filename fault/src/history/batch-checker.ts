import type { Attempt, PublishHistory } from './publish-history';

/** What became of the batches that were not acknowledged: each must be stored whole or not at all. */
export interface BatchCheck {
  /** Batches (any outcome) / batches whose messages name several topics. */
  batches: number;
  multiTopic: number;
  /** Batches without an ACK (unknown or refused), and how many of them span several topics. */
  unacked: number;
  unackedMultiTopic: number;
  /** Unacknowledged batches stored whole (allowed for an unknown outcome) or not at all. */
  storedWhole: number;
  storedNone: number;
  /** Unacknowledged batches with some messages stored and others not (in any topic): must be 0. */
  partial: number;
  /** Of those, batches spanning several topics. */
  partialMultiTopic: number;
}

/**
 * A batch commits as one: after any crash, every unacknowledged batch is visible entirely or not at all —
 * across topics for a batch naming several (docs/http-api.md § `POST /mmmq/messages/batch`: one commit). `copies` gives how many times each
 * message id is stored; batch messages are never retried one by one, so only the batch itself can store them.
 */
export function checkBatches(history: PublishHistory, copies: ReadonlyMap<string, number>, problem: (text: string) => void): BatchCheck {
  const check: BatchCheck = {
    batches: 0,
    multiTopic: 0,
    unacked: 0,
    unackedMultiTopic: 0,
    storedWhole: 0,
    storedNone: 0,
    partial: 0,
    partialMultiTopic: 0,
  };
  for (const [key, members] of history.batches()) {
    const topics = new Set(members.map((attempt) => attempt.topic));
    const multiTopic = topics.size > 1;
    check.batches++;
    if (multiTopic) check.multiTopic++;
    if (members.every((attempt) => attempt.outcome === 'acked')) continue; // each is checked at its offset
    check.unacked++;
    if (multiTopic) check.unackedMultiTopic++;
    const stored = members.filter((attempt) => (copies.get(attempt.id) ?? 0) > 0);
    if (stored.length === members.length) check.storedWhole++;
    else if (stored.length === 0) check.storedNone++;
    else {
      check.partial++;
      if (multiTopic) check.partialMultiTopic++;
      problem(`PARTIAL BATCH: ${key} (${members[0].outcome}) is stored in part: ${describe(members, stored)}`);
    }
  }
  return check;
}

function describe(members: readonly Attempt[], stored: readonly Attempt[]): string {
  const perTopic = new Map<string, { stored: number; all: number }>();
  for (const attempt of members) {
    const counts = perTopic.get(attempt.topic) ?? { stored: 0, all: 0 };
    counts.all++;
    if (stored.includes(attempt)) counts.stored++;
    perTopic.set(attempt.topic, counts);
  }
  return [...perTopic].map(([topic, counts]) => `${topic} ${counts.stored} of ${counts.all}`).join(', ');
}
