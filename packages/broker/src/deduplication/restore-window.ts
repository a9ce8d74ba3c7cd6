import { decodeEnvelopeHead, EnvelopeHead } from '../format/message-envelope';
import { TopicQueue } from '../storage';
import { DeduplicationRestoreError } from './deduplication.errors';
import { DeduplicationWindow } from './deduplication-window';

/** Entries read from the log at a time, newest first. */
const READ_CHUNK = 256;

/**
 * Remembers the ids of the messages `queue` stored within the window, read back from the tail of its log: at most
 * `maxIds` of them and only back to the first message older than the window, so the cost is bounded by the window,
 * not by the log. Retention may have deleted older segments: the ids of those are simply not known. Every stored id
 * is read back, broker-assigned ones too (they never collide, they only take room). Only each message's id and publish
 * time are decoded, not its content.
 *
 * @throws DeduplicationRestoreError when a read fails: the ids read until then are remembered all the same
 */
export async function restoreWindow(queue: TopicQueue, window: DeduplicationWindow): Promise<void> {
  const horizon = Date.now() - window.windowMs;
  // Newest first; the first seen of an id is its newest copy.
  const found = new Map<string, { at: number; offset: number }>();
  let end = queue.tailOffset;
  try {
    scan: while (end > queue.startOffset && found.size < window.maxIds) {
      const start = Math.max(queue.startOffset, end - READ_CHUNK);
      const entries = await readRange(queue, start, end);
      for (let n = entries.length - 1; n >= 0; n--) {
        const entry = entries[n];
        const { id, publishedAt } = entry instanceof Error ? NOT_A_MESSAGE : decodeOrSkip(entry);
        if (publishedAt !== null && publishedAt <= horizon) break scan;
        if (id === null || publishedAt === null || found.has(id)) continue;
        found.set(id, { at: publishedAt, offset: start + n });
        if (found.size >= window.maxIds) break scan;
      }
      end = start;
    }
  } catch (error) {
    throw new DeduplicationRestoreError(queue.name, found.size, end, error);
  } finally {
    // Whatever was read is remembered, also when a later read failed: each id found is where the log says.
    for (const [id, { at, offset }] of [...found].reverse()) window.restore(id, at, offset);
  }
}

/** A damaged entry (delivery skips it too) remembers nothing. */
const NOT_A_MESSAGE: EnvelopeHead = { id: null, publishedAt: null };

function decodeOrSkip(payload: Buffer): EnvelopeHead {
  try {
    return decodeEnvelopeHead(payload);
  } catch {
    return NOT_A_MESSAGE;
  }
}

async function readRange(queue: TopicQueue, start: number, end: number): Promise<Array<Buffer | Error>> {
  const entries: Array<Buffer | Error> = [];
  while (start + entries.length < end) {
    const read = await queue.peekMany(start + entries.length, end - start - entries.length);
    if (read.length === 0) break;
    entries.push(...read);
  }
  return entries;
}
