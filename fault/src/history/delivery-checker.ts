import { CHECKER_BATCH_SIZE, type Delivery, type PushedMessage } from '../consumer/recording-consumer';
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
  /**
   * The most messages one subscription pushed flagged `redelivered` after a restart without its consumer having got
   * them before: only a window on its way at the kill (its bytes lost with the broker) and what the delivery mark
   * reserves ahead of what was sent (docs/delivery.md, "The model": at most 100 messages never sent) may be.
   */
  flaggedNeverReceivedMax: number;
  /** Subscriptions and restarts where more than {@link FLAGGED_NEVER_RECEIVED_BOUND} were flagged so. */
  flaggedNeverReceivedBeyondBound: number;
  problems: string[];
}

const MAX_PROBLEMS = 25;
/**
 * What a broker crash may deliver again per subscription of what the consumer had acknowledged: settlements not
 * durable yet (docs/delivery.md, "The model": `SETTLED_NOT_DURABLE_MAX`; the checker's windows are smaller).
 */
export const SETTLED_NOT_DURABLE_MAX = 1000;
/** The broker's delivery-mark reserve (`DELIVERY_MARK_RESERVE`): messages never sent a crash may count as delivered. */
const DELIVERY_MARK_RESERVE = 100;
/**
 * What may come flagged `redelivered` per subscription and restart without having reached the consumer: one window on
 * its way at the kill (`maxInFlight` 1) plus the delivery mark's reserve.
 */
export const FLAGGED_NEVER_RECEIVED_BOUND = CHECKER_BATCH_SIZE + DELIVERY_MARK_RESERVE;

/**
 * Per consumer id (each subscribed to every topic, `**`): `consumerIds` must each have every acknowledged message;
 * by default those that received anything.
 */
export function checkDeliveries(
  history: PublishHistory,
  deliveries: readonly Delivery[],
  topics: Map<string, StoredTopic>,
  consumerIds: readonly string[] = [...new Set(deliveries.map((delivery) => delivery.consumerId))],
): DeliveryCheck {
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
    flaggedNeverReceivedMax: 0,
    flaggedNeverReceivedBeyondBound: 0,
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
    const subscription = `${delivery.consumerId}\n${delivery.topic}`;
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
    delivered.add(`${delivery.consumerId}\n${where}#${delivery.id}`);
    const previous = highest.get(subscription) ?? -1;
    if (delivery.offset <= previous) {
      check.redeliveries++;
      continue;
    }
    for (let offset = previous + 1; offset < delivery.offset; offset++) {
      const jumped = topic?.entries.get(offset);
      if (jumped && 'payload' in jumped) {
        check.skipped++;
        problem(
          `${delivery.consumerId}: ${delivery.topic}@${offset} is readable but was skipped (delivery went from ${previous} to ${delivery.offset})`,
        );
      }
    }
    highest.set(subscription, delivery.offset);
  }
  checkSettledRedeliveries(deliveries, check, problem);
  checkFlaggedNeverReceived(deliveries, check, problem);
  for (const attempt of history.attempts) {
    if (attempt.outcome !== 'acked') continue;
    for (const consumerId of consumerIds.length > 0 ? consumerIds : ['(no delivery at all)']) {
      if (delivered.has(`${consumerId}\n${attempt.topic}@${attempt.offset}#${attempt.id}`)) continue;
      check.ackedNotDelivered++;
      problem(`${attempt.id} acked at ${attempt.topic}@${attempt.offset} was never delivered there to ${consumerId}`);
    }
  }
  return check;
}

/**
 * A push flagged `redelivered` must carry a message its consumer got before, but for a window on its way at a kill and
 * the delivery mark's reserve (at most {@link FLAGGED_NEVER_RECEIVED_BOUND} per subscription and restart): counted per
 * subscription and broker process.
 */
function checkFlaggedNeverReceived(deliveries: readonly Delivery[], check: DeliveryCheck, problem: (text: string) => void): void {
  const received = new Set<string>();
  const flagged = new Map<string, number>();
  for (const delivery of deliveries) {
    const key = `${delivery.consumerId}\n${delivery.topic}@${delivery.offset}`;
    if (delivery.redelivered && !received.has(key)) {
      const at = `${delivery.consumerId}\n${delivery.topic}\n${delivery.epoch}`;
      flagged.set(at, (flagged.get(at) ?? 0) + 1);
    }
    received.add(key);
  }
  for (const [at, count] of flagged) {
    check.flaggedNeverReceivedMax = Math.max(check.flaggedNeverReceivedMax, count);
    if (count <= FLAGGED_NEVER_RECEIVED_BOUND) continue;
    check.flaggedNeverReceivedBeyondBound++;
    const [consumerId, topic, epoch] = at.split('\n');
    problem(`${consumerId}: ${count} messages of ${topic} came flagged redelivered in epoch ${epoch} without having been received before`);
  }
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
    const where = `${delivery.consumerId}\n${delivery.topic}@${delivery.offset}`;
    if (settles) {
      lastSettled.set(where, delivery);
      continue;
    }
    const settled = lastSettled.get(where);
    if (settled === undefined) continue;
    if (settled.epoch === delivery.epoch) {
      check.settledRedeliveredWithoutCrash++;
      problem(
        `${delivery.consumerId}: ${delivery.topic}@${delivery.offset} was delivered again by the broker process its consumer had acknowledged it to (epoch ${delivery.epoch})`,
      );
      continue;
    }
    const key = `${settled.epoch}\n${delivery.consumerId}\n${delivery.topic}`;
    const offsets = afterKill.get(key) ?? new Set<number>();
    offsets.add(delivery.offset);
    afterKill.set(key, offsets);
  }
  for (const [key, offsets] of afterKill) {
    check.settledRedeliveredAfterKillMax = Math.max(check.settledRedeliveredAfterKillMax, offsets.size);
    if (offsets.size <= SETTLED_NOT_DURABLE_MAX) continue;
    check.settledRedeliveredBeyondBound++;
    const [epoch, consumerId, topic] = key.split('\n');
    problem(`${consumerId}: ${topic}: ${offsets.size} messages acknowledged in epoch ${epoch} were delivered again after its kill`);
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
