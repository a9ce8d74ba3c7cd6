import { DecodedEnvelope, decodeEnvelope } from '../publish/message-envelope';

/** A batched push stops growing past this many payload bytes (it always holds at least one message). */
export const PUSH_BATCH_MAX_BYTES = 1024 * 1024;

/** A message of the window being delivered, with what happened to it so far. */
export interface PendingMessage {
  offset: number;
  envelope: DecodedEnvelope;
  attempts: number;
  nacks: number;
}

/** The messages one push carries, and the offset the checkpoint moves to once they are all settled. */
export interface PushWindow {
  pending: PendingMessage[];
  end: number;
}

/**
 * Turns entries read from `offset` into a push window of at most {@link PUSH_BATCH_MAX_BYTES}; entries that
 * are corrupt or not messages are passed to `skip` and left out, and the window still moves past them.
 */
export function toWindow(offset: number, read: Array<Buffer | Error>, skip: (offset: number, error: Error) => void): PushWindow {
  const entries = withinBytes(read, PUSH_BATCH_MAX_BYTES);
  const pending: PendingMessage[] = [];
  entries.forEach((entry, i) => {
    const envelope = entry instanceof Error ? entry : decodeOrError(entry);
    if (envelope instanceof Error) skip(offset + i, envelope);
    else pending.push({ offset: offset + i, envelope, attempts: 0, nacks: 0 });
  });
  return { pending, end: offset + entries.length };
}

/**
 * Entries read from memory are the same `Buffer` objects for every subscription of a topic, so what one
 * subscription decoded serves the others (fan-out decodes each entry once); entries read from disk are new
 * objects and simply miss. Held weakly: an entry leaves with the last reference to its payload.
 */
const decodedPayloads = new WeakMap<Buffer, DecodedEnvelope | Error>();

/** The CRC matched, so these bytes are what was written: retrying cannot make them a message. */
function decodeOrError(payload: Buffer): DecodedEnvelope | Error {
  let decoded = decodedPayloads.get(payload);
  if (decoded === undefined) {
    try {
      decoded = decodeEnvelope(payload);
    } catch (error) {
      decoded = error as Error;
    }
    decodedPayloads.set(payload, decoded);
  }
  return decoded;
}

/** The leading entries whose payloads fit in `maxBytes`, and always the first. */
function withinBytes(entries: Array<Buffer | Error>, maxBytes: number): Array<Buffer | Error> {
  let bytes = 0;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    bytes += entry instanceof Error ? 0 : entry.length;
    if (i > 0 && bytes > maxBytes) return entries.slice(0, i);
  }
  return entries;
}
