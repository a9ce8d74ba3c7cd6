import { randomUUID } from 'node:crypto';
import { assertMessageId, MmmqError, MmmqValidationError, Topic } from '@mmmq/core';
import { TopicQueue } from '../storage/topic-queue';
import { decodeEntry } from '../format/decode-entry';
import { TopicNotFoundError } from '../topics/topic.errors';
import type { PublishIntake } from './publish-intake';
import type { ScheduledCancellations } from './scheduled-cancellations';
import { CANCELLATION_ID_PREFIX } from './topic-cancellations';

/** No scheduled message with that id in the topic's retained log: 404. */
export class ScheduledMessageNotFoundError extends MmmqError {}

/** The message exists but cannot be cancelled: it is not scheduled, or its time has come. 409. */
export class NotCancellableError extends MmmqError {}

/** What `POST /mmmq/scheduled/cancel` answers. */
export interface CancelledMessage {
  topic: string;
  id: string;
  offset: number;
  /** Epoch ms it was due at. */
  dueAt: number;
}

/** Entries read at once while looking for an id, from the tail back. */
const SEARCH_CHUNK = 1000;

/** `{"topic": …, "id": …, "offset"?: …}`, checked. */
export function cancelRequest(body: unknown): { topic: Topic; id: string; offset?: number } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new MmmqValidationError('The cancel body must be a JSON object {"topic": …, "id": …, "offset"?: …}');
  }
  const { topic, id, offset, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw new MmmqValidationError(`Unknown field ${JSON.stringify(unknown)} in the cancel body`);
  if (offset !== undefined && !(Number.isSafeInteger(offset) && (offset as number) >= 0)) {
    throw new MmmqValidationError(`offset must be a non-negative integer, got ${JSON.stringify(offset)}`);
  }
  return { topic: Topic.of(topic), id: assertMessageId(id), ...(offset === undefined ? {} : { offset: offset as number }) };
}

/**
 * Cancels a scheduled message before its time: appends a cancellation record to its topic (journaled like a
 * publish, so it survives a crash) and resolves once that record is durable. From the moment it is checked on, the
 * cancellation is announced to delivery ({@link ScheduledCancellations}): a subscription whose message falls due
 * meanwhile holds it back until the record is committed (then never delivers it) or fails. So a message whose
 * time has not come when checked here is not delivered by any subscription, and one whose time has come (which a
 * subscription may have handed out) is refused. Found by `offset` (the publish's ACK) when given, else by looking for
 * `id` from the log's tail back (a cost in reads proportional to how far back it is).
 *
 * @throws TopicNotFoundError, ScheduledMessageNotFoundError (404); NotCancellableError (409) for a message that is not
 *   scheduled or whose due time has passed
 */
export async function cancelScheduled(
  queue: TopicQueue | undefined,
  intake: PublishIntake,
  cancellations: ScheduledCancellations,
  request: { topic: Topic; id: string; offset?: number },
): Promise<CancelledMessage> {
  if (!queue) throw new TopicNotFoundError(request.topic.name);
  const found = await find(queue, request.id, request.offset);
  if (!found) throw new ScheduledMessageNotFoundError(`No message with id '${request.id}' in topic ${request.topic.name}`);
  const { offset, dueAt } = found;
  if (dueAt === undefined) throw new NotCancellableError(`Message '${request.id}' (offset ${offset}) is not scheduled`);
  const topic = cancellations.of(queue);
  // Announced before the time is checked: a subscription promoting it after this holds it back; one that promoted it
  // before did so at or after its due time, which the check below then finds passed.
  topic.begin(offset);
  let committed = false;
  try {
    if (dueAt <= Date.now()) {
      throw new NotCancellableError(
        `Message '${request.id}' (offset ${offset}) was due at ${new Date(dueAt).toISOString()}: too late to cancel`,
      );
    }
    await intake.publish({
      topic: request.topic,
      id: `${CANCELLATION_ID_PREFIX}${randomUUID()}`,
      headers: {},
      content: Buffer.from('null'),
      cancels: offset,
    });
    committed = true;
  } finally {
    topic.settle(offset, committed);
  }
  return { topic: request.topic.name, id: request.id, offset, dueAt };
}

async function find(queue: TopicQueue, id: string, offset?: number): Promise<{ offset: number; dueAt?: number } | undefined> {
  if (offset !== undefined) {
    if (offset < queue.startOffset || offset >= queue.tailOffset) return undefined;
    const [entry] = await queue.peekMany(offset, 1);
    const envelope = entry === undefined ? undefined : decodeEntry(entry);
    return envelope && !(envelope instanceof Error) && envelope.id === id ? { offset, dueAt: envelope.dueAt } : undefined;
  }
  for (let end = queue.tailOffset; end > queue.startOffset; end -= SEARCH_CHUNK) {
    const first = Math.max(queue.startOffset, end - SEARCH_CHUNK);
    const entries = await queue.peekMany(first, end - first);
    for (let i = entries.length - 1; i >= 0; i--) {
      const envelope = decodeEntry(entries[i]);
      if (!(envelope instanceof Error) && envelope.id === id && envelope.cancels === undefined)
        return { offset: first + i, dueAt: envelope.dueAt };
    }
  }
  return undefined;
}
