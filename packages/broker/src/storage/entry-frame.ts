import { crc32c } from '@node-rs/crc32';
import { ChecksumMismatchError, CorruptionError } from './storage.errors';

/** `[4B length L = 4 + n][4B CRC32C of payload]` precedes every payload in a `.mmm` file. */
export const FRAME_HEADER_BYTES = 8;
/** The length field counts the CRC and the payload, not itself. */
const LENGTH_FIELD_BYTES = 4;

export interface EncodedFrames {
  /** All frames back to back, ready for one write. */
  bytes: Buffer;
  /** Start of each frame, relative to the start of `bytes`. */
  starts: number[];
}

/** Frames many payloads into a single buffer so a group commit costs one write. */
export function encodeFrames(payloads: readonly Buffer[]): EncodedFrames {
  let total = 0;
  for (const payload of payloads) total += FRAME_HEADER_BYTES + payload.length;
  const bytes = Buffer.allocUnsafe(total);
  const starts = new Array<number>(payloads.length);
  let position = 0;
  for (let i = 0; i < payloads.length; i++) {
    const payload = payloads[i];
    if (payload.length === 0) throw new CorruptionError('An entry with an empty payload cannot be written');
    starts[i] = position;
    bytes.writeUInt32BE(LENGTH_FIELD_BYTES + payload.length, position);
    bytes.writeUInt32BE(crc32c(payload), position + 4);
    payload.copy(bytes, position + FRAME_HEADER_BYTES);
    position += FRAME_HEADER_BYTES + payload.length;
  }
  return { bytes, starts };
}

/**
 * Reads the length field of a frame header. Returns the whole frame size, or -1 when the field cannot describe
 * a valid entry (an empty payload is never valid, so a zero-filled tail never reads as an entry).
 */
export function frameSizeAt(bytes: Buffer, position: number): number {
  if (position + FRAME_HEADER_BYTES > bytes.length) return -1;
  const length = bytes.readUInt32BE(position);
  return length <= LENGTH_FIELD_BYTES ? -1 : LENGTH_FIELD_BYTES + length;
}

/** Returns whether the frame at `position` (whose size is known) carries a matching checksum. */
export function frameChecksumMatches(bytes: Buffer, position: number, frameSize: number): boolean {
  const payload = bytes.subarray(position + FRAME_HEADER_BYTES, position + frameSize);
  return crc32c(payload) === bytes.readUInt32BE(position + 4);
}

/**
 * Verifies one complete frame and returns its payload (a view, not a copy).
 * `offset` only labels the error.
 */
export function decodeFrame(frame: Buffer, offset: number): Buffer {
  const size = frameSizeAt(frame, 0);
  if (size < 0) throw new CorruptionError(`Entry at offset ${offset} has an invalid length field`, offset);
  if (size !== frame.length) {
    throw new CorruptionError(`Entry at offset ${offset} declares ${size} bytes but the index gives it ${frame.length}`, offset);
  }
  if (!frameChecksumMatches(frame, 0, size)) {
    const stored = frame.readUInt32BE(4).toString(16);
    const computed = crc32c(frame.subarray(FRAME_HEADER_BYTES)).toString(16);
    throw new ChecksumMismatchError(`CRC mismatch at offset ${offset}: stored=${stored}, computed=${computed}`, offset);
  }
  return frame.subarray(FRAME_HEADER_BYTES);
}
