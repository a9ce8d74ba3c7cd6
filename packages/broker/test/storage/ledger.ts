import type { TopicQueue } from '../../src/storage/topic-queue';
import type { TopicQueueContainer } from '../../src/storage/topic-queue-container';

/** Topic name → its entries by offset, as text. */
export type TopicContents = Record<string, string[]>;

/** One part of a journal commit, as text: the queue and the payloads for it. */
export type Part = [TopicQueue, string[]];

/**
 * Commits through the broker-wide journal and keeps what was acknowledged, entry by entry at the offset the
 * journal gave it: what recovery must bring back, exactly.
 */
export class Ledger {
  private readonly acked = new Map<string, string[]>();
  private counter: number;

  /** `firstNumber` numbers the payloads `next` makes, so two ledgers over one broker never make the same one. */
  constructor(
    private readonly container: TopicQueueContainer,
    firstNumber = 0,
  ) {
    this.counter = firstNumber;
  }

  /** `count` new distinct payloads for `topic`, of varied lengths. */
  next(topic: string, count: number): string[] {
    return Array.from({ length: count }, () => {
      const n = this.counter++;
      return `${topic}#${n}:` + 'abcdefghij'.repeat(n % 7);
    });
  }

  /** Commits every part in one journal record (all or nothing); resolves once it is acknowledged and recorded. */
  async commit(parts: readonly Part[]): Promise<void> {
    const firstOffsets = await this.container.journal.commit(
      parts.map(([queue, payloads]) => ({ topic: queue, payloads: payloads.map((payload) => Buffer.from(payload)) })),
    );
    parts.forEach(([queue, payloads], i) => this.record(queue.name, firstOffsets[i] as number, payloads));
  }

  /** Commits `count` new payloads to each queue, each queue in its own record, one after the other. */
  async fill(queues: readonly TopicQueue[], count: number): Promise<void> {
    for (const queue of queues) await this.commit([[queue, this.next(queue.name, count)]]);
  }

  /** Records entries acknowledged elsewhere (by an earlier run of the broker) at `first`, `first + 1`… */
  record(topic: string, first: number, payloads: readonly string[]): void {
    let entries = this.acked.get(topic);
    if (!entries) this.acked.set(topic, (entries = []));
    payloads.forEach((payload, n) => (entries[first + n] = payload));
  }

  /** Everything acknowledged so far, plus `durable` (parts not acknowledged yet that recovery must bring back). */
  expected(topics: readonly string[], durable: readonly Part[] = []): TopicContents {
    const contents: TopicContents = {};
    for (const topic of topics) contents[topic] = [...(this.acked.get(topic) ?? [])];
    for (const [queue, payloads] of durable) contents[queue.name].push(...payloads);
    return contents;
  }
}
