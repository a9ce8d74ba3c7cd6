import { MessageHeaders, MmmqValidationError } from '@mmmq/core';
import { decodeEnvelope } from '../format/message-envelope';
import { CorruptionError } from '../storage/storage.errors';
import { TopicQueue } from '../storage/topic-queue';

/** Messages read per page unless `limit` says otherwise. */
export const DEFAULT_BROWSE_PAGE_SIZE = 100;
/** The largest page `limit` may ask for: a page is read and parsed in one request. */
export const MAX_BROWSE_PAGE_SIZE = 1000;

/** A stored message as an operator sees it. */
export interface MessageView {
  offset: number;
  /** Null for an entry written by the original Java broker. */
  id: string | null;
  /** The topic it was published to (for a dead letter: the original topic). */
  topic: string;
  headers: MessageHeaders;
  publishedAt: number | null;
  expiresAt?: number;
  priority?: number;
  /** A scheduled message's due time, epoch ms: not delivered before it. */
  dueAt?: number;
  /** A cancellation record (content null), not a message: the offset of the scheduled message it cancelled. */
  cancels?: number;
  content: unknown;
}

/** One page of a topic, oldest first. */
export interface MessagePage {
  messages: MessageView[];
  /** Offsets of damaged entries in the page's range: skipped, as delivery skips them. */
  corrupt: number[];
  /** Pass as `from` for the next page; equal to `tailOffset` at the end. */
  nextFrom: number;
  startOffset: number;
  tailOffset: number;
}

/** Checks the `from` and `limit` of a page request, naming the parameter. */
export function pageRange(from: string | undefined, limit: string | undefined): { from?: number; limit: number } {
  const start = from === undefined ? undefined : Number(from);
  if (start !== undefined && (!Number.isSafeInteger(start) || start < 0)) {
    throw new MmmqValidationError(`from must be a non-negative integer, got ${JSON.stringify(from)}`);
  }
  const size = limit === undefined ? DEFAULT_BROWSE_PAGE_SIZE : Number(limit);
  if (!Number.isSafeInteger(size) || size < 1 || size > MAX_BROWSE_PAGE_SIZE) {
    throw new MmmqValidationError(`limit must be an integer from 1 to ${MAX_BROWSE_PAGE_SIZE}, got ${JSON.stringify(limit)}`);
  }
  return { from: start, limit: size };
}

/**
 * Up to `limit` committed messages of `queue` from `from` (default: the oldest retained; an offset below it starts
 * there), read without changing anything: no subscription, no checkpoint.
 */
export async function browseTopic(queue: TopicQueue, from: number | undefined, limit: number): Promise<MessagePage> {
  const startOffset = queue.startOffset;
  const tailOffset = queue.tailOffset;
  const messages: MessageView[] = [];
  const corrupt: number[] = [];
  let offset = Math.max(from ?? startOffset, startOffset);
  for (; offset < tailOffset && messages.length < limit; offset++) {
    const payload = await queue.peek(offset).catch((error: unknown) => {
      if (error instanceof CorruptionError) return error;
      throw error;
    });
    if (payload === null) break;
    const view = payload instanceof Error ? undefined : viewOf(offset, payload);
    if (view) messages.push(view);
    else corrupt.push(offset);
  }
  return { messages, corrupt, nextFrom: Math.min(offset, tailOffset), startOffset, tailOffset };
}

function viewOf(offset: number, payload: Buffer): MessageView | undefined {
  try {
    const { id, topic, headers, publishedAt, expiresAt, priority, dueAt, cancels, content } = decodeEnvelope(payload);
    const view: MessageView = { offset, id, topic, headers, publishedAt, content: JSON.parse(content.toString('utf8')) };
    if (expiresAt !== undefined) view.expiresAt = expiresAt;
    if (priority !== undefined) view.priority = priority;
    if (dueAt !== undefined) view.dueAt = dueAt;
    if (cancels !== undefined) view.cancels = cancels;
    return view;
  } catch {
    // The CRC matched but the bytes are not a message: shown as corrupt, as delivery skips it.
    return undefined;
  }
}
