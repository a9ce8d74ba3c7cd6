import { DecodedEnvelope, decodeEnvelope } from './message-envelope';

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
