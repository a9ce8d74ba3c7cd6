import { DecodedEnvelope, decodeEnvelope } from '../../format/message-envelope';

/** A batched push or a fetch stops growing past this many payload bytes (it always holds at least one message). */
export const PUSH_BATCH_MAX_BYTES = 1024 * 1024;

/**
 * The message an entry holds, or why it holds none: a read error (corrupt), or bytes that are not a message. The
 * CRC matched in the second case, so these bytes are what was written: retrying cannot make them a message. An entry
 * still in memory was encoded in this process and is not scanned again (see `decodeEnvelope`), so fan-out decodes
 * each entry once.
 */
export function decodeEntry(entry: Buffer | Error): DecodedEnvelope | Error {
  if (entry instanceof Error) return entry;
  try {
    return decodeEnvelope(entry);
  } catch (error) {
    return error as Error;
  }
}
