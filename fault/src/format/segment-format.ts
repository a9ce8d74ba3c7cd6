import { crc32c } from './crc32c';

/**
 * The on-disk format of docs/storage.md, written from the document rather than from the broker's code:
 * `.mmm` = frames `[u32 BE L = 4 + n][u32 BE CRC32C(payload)][n payload bytes]`, `L = 4` (empty) never valid;
 * `.idx` = entry i is the u64 BE byte address of entry i in the `.mmm`; segment files are named after the
 * 19-digit zero-padded offset of their first entry.
 */
export const FRAME_HEADER_BYTES = 8;
export const INDEX_ENTRY_BYTES = 8;
const LENGTH_FIELD_BYTES = 4;
const SEGMENT_NAME = /^(\d{19})\.(mmm|idx)$/;

export function segmentFileName(startOffset: number, kind: 'mmm' | 'idx'): string {
  return `${String(startOffset).padStart(19, '0')}.${kind}`;
}

/** The start offset of a segment file, or undefined for any other file name. */
export function parseSegmentFileName(name: string): { startOffset: number; kind: 'mmm' | 'idx' } | undefined {
  const match = SEGMENT_NAME.exec(name);
  if (!match) return undefined;
  return { startOffset: Number(match[1]), kind: match[2] as 'mmm' | 'idx' };
}

export function encodeFrame(payload: Buffer): Buffer {
  if (payload.length === 0) throw new Error('An empty payload is never a valid entry');
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload.length);
  frame.writeUInt32BE(LENGTH_FIELD_BYTES + payload.length, 0);
  frame.writeUInt32BE(crc32c(payload), 4);
  payload.copy(frame, FRAME_HEADER_BYTES);
  return frame;
}

export function encodeIndexEntry(address: number): Buffer {
  const entry = Buffer.alloc(INDEX_ENTRY_BYTES);
  entry.writeBigUInt64BE(BigInt(address));
  return entry;
}

/** A frame found in a data file. */
export type FrameRead =
  | { kind: 'ok'; address: number; size: number; payload: Buffer }
  /** The length field is < 5 or runs past the end of the file. */
  | { kind: 'bad-length'; address: number }
  /** A complete frame whose checksum does not match. */
  | { kind: 'bad-checksum'; address: number; size: number };

/** Reads the frame at `address` of `data`, checking its length and CRC32C. */
export function readFrameAt(data: Buffer, address: number): FrameRead {
  if (address < 0 || address + FRAME_HEADER_BYTES > data.length) return { kind: 'bad-length', address };
  const length = data.readUInt32BE(address);
  const size = LENGTH_FIELD_BYTES + length;
  if (length <= LENGTH_FIELD_BYTES || address + size > data.length) return { kind: 'bad-length', address };
  const payload = data.subarray(address + FRAME_HEADER_BYTES, address + size);
  if (crc32c(payload) !== data.readUInt32BE(address + 4)) return { kind: 'bad-checksum', address, size };
  return { kind: 'ok', address, size, payload };
}

/** The addresses in an index file: whole 8-byte entries only (a torn tail is ignored). */
export function decodeIndex(index: Buffer): number[] {
  const addresses: number[] = [];
  for (let at = 0; at + INDEX_ENTRY_BYTES <= index.length; at += INDEX_ENTRY_BYTES) {
    addresses.push(Number(index.readBigUInt64BE(at)));
  }
  return addresses;
}

/** Every valid frame from the start of `data`, back to back, stopping at the first one that does not read. */
export function walkFrames(data: Buffer): Array<{ address: number; size: number; payload: Buffer }> {
  const frames: Array<{ address: number; size: number; payload: Buffer }> = [];
  let address = 0;
  for (;;) {
    const frame = readFrameAt(data, address);
    if (frame.kind !== 'ok') return frames;
    frames.push(frame);
    address += frame.size;
  }
}
