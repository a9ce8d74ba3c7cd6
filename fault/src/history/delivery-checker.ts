import type { Delivery, PushedMessage } from '../consumer/recording-consumer';
import type { StoredTopic } from '../format/data-root-reader';
import type { PublishHistory } from './publish-history';

/** What a push consumer received, compared with what was published and with what the files hold. */
export interface DeliveryCheck {
  deliveries: number;
  /** Pushes of something that was never published to that topic, or with other content bytes. */
  garbageServed: number;
  /** Offsets delivered with one message whose entry now holds another (a committed entry was replaced). */
  deliveredThenChanged: number;
  /** Acknowledged messages the consumer never received at their offset. */
  ackedNotDelivered: number;
  /** First deliveries that jumped over readable entries (only damaged entries may be skipped). */
  skipped: number;
  /** Pushes of an offset already delivered (allowed: at-least-once after a restart). */
  redeliveries: number;
  /** Messages delivered again by the broker process whose consumer had acknowledged them (never allowed). */
  settledRedeliveredWithoutCrash: number;
  /** The most messages one subscription had acknowledged before a kill and delivered again after it. */
  settledRedeliveredAfterKillMax: number;
  /** Kills after which a subscription delivered more acknowledged messages again than SETTLED_NOT_DURABLE_MAX. */
  settledRedeliveredBeyondBound: number;
  problems: string[];
}

const MAX_PROBLEMS = 25;
/**
 * What a broker crash may deliver again per subscription of what the consumer had acknowledged: settlements not
 * durable yet (docs/delivery.md, "The model": `SETTLED_NOT_DURABLE_MAX`; the checker's windows are smaller).
 */
export const SETTLED_NOT_DURABLE_MAX = 1000;

export function checkDeliveries(history: PublishHistory, deliveries: readonly Delivery[], topics: Map<string, StoredTopic>): DeliveryCheck {
  const check: DeliveryCheck = {
    deliveries: deliveries.length,
    garbageServed: 0,
    deliveredThenChanged: 0,
    ackedNotDelivered: 0,
    skipped: 0,
    redeliveries: 0,
    settledRedeliveredWithoutCrash: 0,
    settledRedeliveredAfterKillMax: 0,
    settledRedeliveredBeyondBound: 0,
    problems: [],
  };
  const problem = (text: string) => {
    if (check.problems.length < MAX_PROBLEMS) check.problems.push(text);
  };
  const delivered = new Set<string>();
  const changed = new Set<string>();
  const highest = new Map<string, number>();
  for (const delivery of deliveries) {
    const where = `${delivery.topic}@${delivery.offset}`;
    if (delivery.problem) {
      check.garbageServed++;
      problem(delivery.problem);
      continue;
    }
    const topic = topics.get(delivery.topic);
    const entry = topic?.entries.get(delivery.offset);
    const stillThere = entry !== undefined && 'payload' in entry && entry.payload.includes(`"id":${JSON.stringify(delivery.id)}`);
    if (!stillThere && !changed.has(where)) {
      changed.add(where);
      check.deliveredThenChanged++;
      problem(`${delivery.id} was delivered at ${where}, which no longer holds it`);
    }
    delivered.add(`${where}#${delivery.id}`);
    const previous = highest.get(delivery.topic) ?? -1;
    if (delivery.offset <= previous) {
      check.redeliveries++;
      continue;
    }
    for (let offset = previous + 1; offset < delivery.offset; offset++) {
      const jumped = topic?.entries.get(offset);
      if (jumped && 'payload' in jumped) {
        check.skipped++;
        problem(`${delivery.topic}@${offset} is readable but was skipped (delivery went from ${previous} to ${delivery.offset})`);
      }
    }
    highest.set(delivery.topic, delivery.offset);
  }
  checkSettledRedeliveries(deliveries, check, problem);
  for (const attempt of history.attempts) {
    if (attempt.outcome !== 'acked') continue;
    if (!delivered.has(`${attempt.topic}@${attempt.offset}#${attempt.id}`)) {
      check.ackedNotDelivered++;
      problem(`${attempt.id} acked at ${attempt.topic}@${attempt.offset} was never delivered there`);
    }
  }
  return check;
}

/**
 * A message the consumer acknowledged may come again only after a kill of the broker that had it (its settlement was
 * not durable yet), and then at most SETTLED_NOT_DURABLE_MAX of them per subscription and kill. The kill is that of
 * the epoch of its last acknowledgement before the redelivery.
 */
function checkSettledRedeliveries(deliveries: readonly Delivery[], check: DeliveryCheck, problem: (text: string) => void): void {
  const lastSettled = new Map<string, Delivery>();
  /** Per epoch and topic: the messages acknowledged in that epoch and delivered again after its kill. */
  const afterKill = new Map<string, Set<number>>();
  const events = deliveries.flatMap((delivery) => [
    { seq: delivery.seq, delivery, settles: false },
    ...(delivery.settledSeq === undefined ? [] : [{ seq: delivery.settledSeq, delivery, settles: true }]),
  ]);
  events.sort((a, b) => a.seq - b.seq);
  for (const { delivery, settles } of events) {
    const where = `${delivery.topic}@${delivery.offset}`;
    if (settles) {
      lastSettled.set(where, delivery);
      continue;
    }
    const settled = lastSettled.get(where);
    if (settled === undefined) continue;
    if (settled.epoch === delivery.epoch) {
      check.settledRedeliveredWithoutCrash++;
      problem(`${where} was delivered again by the broker process its consumer had acknowledged it to (epoch ${delivery.epoch})`);
      continue;
    }
    const key = `${settled.epoch}\n${delivery.topic}`;
    const offsets = afterKill.get(key) ?? new Set<number>();
    offsets.add(delivery.offset);
    afterKill.set(key, offsets);
  }
  for (const [key, offsets] of afterKill) {
    check.settledRedeliveredAfterKillMax = Math.max(check.settledRedeliveredAfterKillMax, offsets.size);
    if (offsets.size <= SETTLED_NOT_DURABLE_MAX) continue;
    check.settledRedeliveredBeyondBound++;
    const [epoch, topic] = key.split('\n');
    problem(`${topic}: ${offsets.size} messages acknowledged in epoch ${epoch} were delivered again after its kill`);
  }
}

/** A push is garbage unless it carries a message published to its topic, with that message's exact content bytes. */
export function inspectDelivery(history: PublishHistory, message: PushedMessage, body: Buffer): string | undefined {
  const published = history
    .attemptsOf(message.id)
    .some((attempt) => attempt.topic === message.topic && body.includes(contentMember(attempt.content)));
  if (published) return undefined;
  return `GARBAGE SERVED: ${message.id} at ${message.topic}@${message.offset} is not a message published to ${message.topic}`;
}

function contentMember(content: Buffer): Buffer {
  return Buffer.concat([Buffer.from('"content":'), content]);
}
