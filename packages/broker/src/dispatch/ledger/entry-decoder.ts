import { DecodedEnvelope, decodeEnvelope } from '../../publish/message-envelope';

/** A batched push or a fetch stops growing past this many payload bytes (it always holds at least one message). */
export const PUSH_BATCH_MAX_BYTES = 1024 * 1024;

/**
 * Entries read from memory are the same `Buffer` objects for every subscription of a topic, so what one
 * subscription decoded serves the others (fan-out decodes each entry once); entries read from disk are new
 * objects and simply miss. Held weakly: an entry leaves with the last reference to its payload.
 */
const decodedPayloads = new WeakMap<Buffer, DecodedEnvelope | Error>();

/**
 * The message an entry holds, or why it holds none: a read error (corrupt), or bytes that are not a message. The
 * CRC matched in the second case, so these bytes are what was written: retrying cannot make them a message.
 */
export function decodeEntry(entry: Buffer | Error): DecodedEnvelope | Error {
  if (entry instanceof Error) return entry;
  let decoded = decodedPayloads.get(entry);
  if (decoded === undefined) {
    try {
      decoded = decodeEnvelope(entry);
    } catch (error) {
      decoded = error as Error;
    }
    decodedPayloads.set(entry, decoded);
  }
  return decoded;
}
