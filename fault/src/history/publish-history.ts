/** How a publish was sent. */
export type PublishRoute = 'http' | 'http-batch' | 'stream' | 'stream-batch';

/**
 * What became of one attempt to publish, as the producer saw it (Jepsen / Kafka `validate_delivery` style):
 * `acked` = the broker promised durability at `offset`; `nacked` = the broker said "not stored"; `unknown` =
 * no answer (timeout, connection lost, broker killed) — it may or may not be stored.
 */
export type Outcome = 'pending' | 'acked' | 'nacked' | 'unknown';

export interface Attempt {
  /** The message id; a producer retry sends the same id and content again as a new attempt. */
  id: string;
  topic: string;
  /** The exact content bytes sent. */
  content: Buffer;
  route: PublishRoute;
  /** One producer connection or client run; `sequence` orders its sends. */
  session: string;
  sequence: number;
  /** The request that carried it, when that was a batch: every message of one batch has the same key. */
  batch?: string;
  cycle: number;
  outcome: Outcome;
  offset?: number;
  status?: number;
}

/** Every publish attempt of a scenario, with its outcome. */
export class PublishHistory {
  readonly attempts: Attempt[] = [];
  private readonly byId = new Map<string, Attempt[]>();

  begin(fields: Omit<Attempt, 'outcome' | 'offset' | 'status'>): Attempt {
    const attempt: Attempt = { ...fields, outcome: 'pending' };
    this.attempts.push(attempt);
    const same = this.byId.get(attempt.id);
    if (same) same.push(attempt);
    else this.byId.set(attempt.id, [attempt]);
    return attempt;
  }

  ack(attempt: Attempt, offset: number): void {
    this.settle(attempt, 'acked');
    attempt.offset = offset;
  }

  nack(attempt: Attempt, status: number): void {
    this.settle(attempt, 'nacked');
    attempt.status = status;
  }

  unknown(attempt: Attempt): void {
    if (attempt.outcome === 'pending') attempt.outcome = 'unknown';
  }

  /** Every attempt still waiting for an answer becomes unknown (its connection is gone). */
  abandonPending(): void {
    for (const attempt of this.attempts) this.unknown(attempt);
  }

  attemptsOf(id: string): readonly Attempt[] {
    return this.byId.get(id) ?? [];
  }

  get ids(): IterableIterator<string> {
    return this.byId.keys();
  }

  count(outcome: Outcome): number {
    return this.attempts.filter((attempt) => attempt.outcome === outcome).length;
  }

  /** Attempts per batch key, in the order they were sent. */
  batches(): Map<string, Attempt[]> {
    const batches = new Map<string, Attempt[]>();
    for (const attempt of this.attempts) {
      if (attempt.batch === undefined) continue;
      const members = batches.get(attempt.batch);
      if (members) members.push(attempt);
      else batches.set(attempt.batch, [attempt]);
    }
    return batches;
  }

  acked(): Attempt[] {
    return this.attempts.filter((attempt) => attempt.outcome === 'acked');
  }

  /** Per topic, the highest acknowledged offset (-1 when none). */
  highestAckedOffsets(): Map<string, number> {
    const highest = new Map<string, number>();
    for (const attempt of this.attempts) {
      if (attempt.outcome !== 'acked') continue;
      highest.set(attempt.topic, Math.max(highest.get(attempt.topic) ?? -1, attempt.offset ?? -1));
    }
    return highest;
  }

  private settle(attempt: Attempt, outcome: 'acked' | 'nacked'): void {
    if (attempt.outcome !== 'pending') {
      throw new Error(`Publish ${attempt.id} answered twice (${attempt.outcome}, then ${outcome})`);
    }
    attempt.outcome = outcome;
  }
}
