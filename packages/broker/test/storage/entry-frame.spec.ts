import fc from 'fast-check';
import { decodeFrame, encodeFrames, frameSizeAt, FRAME_HEADER_BYTES } from '../../src/storage/entry-frame';
import { ChecksumMismatchError, CorruptionError } from '../../src/storage/storage.errors';
import { bytes } from './temp-dir';

describe('entry frames', () => {
  it('frames a payload exactly as the original broker did (length, CRC32C, payload)', () => {
    const payload = bytes('{"topic":{"name":"order.created"},"content":{"id":1}}');
    const { bytes: frame } = encodeFrames([payload]);
    expect(frame.length).toBe(61);
    expect(frame.readUInt32BE(0)).toBe(57);
    expect(frame.readUInt32BE(4)).toBe(0x8af1575b);
    expect(frame.subarray(8).equals(payload)).toBe(true);
  });

  it('round-trips any non-empty payloads through one buffer', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ minLength: 1, maxLength: 300 }), { minLength: 1, maxLength: 20 }), (list) => {
        const payloads = list.map((array) => Buffer.from(array));
        const { bytes: all, starts } = encodeFrames(payloads);
        payloads.forEach((payload, i) => {
          const end = i + 1 < starts.length ? starts[i + 1] : all.length;
          expect(decodeFrame(all.subarray(starts[i], end), i).equals(payload)).toBe(true);
        });
      }),
    );
  });

  it('detects any single flipped bit in the payload', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 200 }), fc.nat(), fc.integer({ min: 0, max: 7 }), (array, at, bit) => {
        const { bytes: frame } = encodeFrames([Buffer.from(array)]);
        const position = FRAME_HEADER_BYTES + (at % array.length);
        frame[position] ^= 1 << bit;
        expect(() => decodeFrame(frame, 0)).toThrow(ChecksumMismatchError);
      }),
    );
  });

  it('never reads a zero-filled region as an entry', () => {
    expect(frameSizeAt(Buffer.alloc(64), 0)).toBe(-1);
    const emptyPayload = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0]);
    expect(() => decodeFrame(emptyPayload, 3)).toThrow(CorruptionError);
  });

  it('refuses to write an empty payload', () => {
    expect(() => encodeFrames([Buffer.alloc(0)])).toThrow(CorruptionError);
  });

  it('rejects a frame whose length disagrees with its index slot', () => {
    const { bytes: frame } = encodeFrames([bytes('hello')]);
    expect(() => decodeFrame(Buffer.concat([frame, Buffer.alloc(3)]), 7)).toThrow(/offset 7 declares 13 bytes/);
  });
});
