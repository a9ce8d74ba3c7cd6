import fc from 'fast-check';
import {
  cursorOnly,
  decodeSnapshot,
  encodeSnapshot,
  LEGACY_CHECKPOINT_BYTES,
  snapshotEnd,
  SubscriptionSnapshot,
} from '../../src/storage/subscription-snapshot';

const SNAPSHOT: SubscriptionSnapshot = {
  cursor: 1_000,
  settled: [
    [1_001, 1_003],
    [1_003, 1_004],
    [1_010, 1_020],
  ],
  counts: [
    { offset: 1_000, deliveries: 3, nacks: 1 },
    { offset: 1_005, deliveries: 2, nacks: 0 },
  ],
  deliveredMark: 1_100,
};

/** Any valid snapshot: sorted disjoint ranges and counts within a window above the cursor, the mark at or above it. */
const snapshots = fc
  .record({
    cursor: fc.nat({ max: 2 ** 40 }),
    gaps: fc.array(fc.tuple(fc.nat({ max: 50 }), fc.integer({ min: 1, max: 50 })), { maxLength: 8 }),
    counts: fc.array(fc.record({ at: fc.nat({ max: 10_000 }), deliveries: fc.nat({ max: 1_000_000 }), nacks: fc.nat({ max: 1_000 }) }), {
      maxLength: 8,
    }),
    markAbove: fc.nat({ max: 20_000 }),
  })
  .map(({ cursor, gaps, counts, markAbove }): SubscriptionSnapshot => {
    let end = cursor;
    const settled = gaps.map(([gap, length]): [number, number] => {
      const first = end + gap;
      end = first + length;
      return [first, end];
    });
    return {
      cursor,
      settled,
      counts: counts.map(({ at, deliveries, nacks }) => ({ offset: cursor + at, deliveries, nacks })),
      deliveredMark: cursor + markAbove,
    };
  });

describe('subscription snapshots', () => {
  it('round-trips any snapshot', () => {
    fc.assert(fc.property(snapshots, (snapshot) => expect(decodeSnapshot(encodeSnapshot(snapshot))).toEqual(snapshot)));
  });

  it('reads the v1 8-byte cursor as a snapshot of the cursor alone', () => {
    const bytes = Buffer.alloc(LEGACY_CHECKPOINT_BYTES);
    bytes.writeBigUInt64BE(42n);
    expect(decodeSnapshot(bytes)).toEqual(cursorOnly(42));
    expect(cursorOnly(42)).toEqual({ cursor: 42, settled: [], counts: [], deliveredMark: 42 });
  });

  it('ignores bytes after the checksum, left by a longer snapshot the file was cut down from', () => {
    const bytes = Buffer.concat([encodeSnapshot(SNAPSHOT), Buffer.from('stale tail of an older snapshot')]);
    expect(decodeSnapshot(bytes)).toEqual(SNAPSHOT);
  });

  it('never reads a delivery mark below the cursor', () => {
    expect(decodeSnapshot(encodeSnapshot({ ...SNAPSHOT, deliveredMark: 10 }))).toEqual({ ...SNAPSHOT, deliveredMark: 1_000 });
  });

  it('says why bytes are damaged: wrong size, wrong magic, cut short, checksum, ranges out of order', () => {
    const bytes = encodeSnapshot(SNAPSHOT);
    expect(decodeSnapshot(Buffer.alloc(12))).toMatch(/neither an 8-byte checkpoint nor a subscription snapshot/);
    expect(decodeSnapshot(Buffer.concat([Buffer.from('MMMQSUB3'), bytes.subarray(8)]))).toMatch(/neither/);
    expect(decodeSnapshot(bytes.subarray(0, bytes.length - 1))).toBe('a subscription snapshot cut short');
    const flipped = Buffer.from(bytes);
    flipped[40] ^= 0x01;
    expect(decodeSnapshot(flipped)).toBe('a subscription snapshot whose checksum does not match');
    const overlapping = encodeSnapshot({
      ...SNAPSHOT,
      settled: [
        [1_001, 1_005],
        [1_004, 1_006],
      ],
    });
    expect(decodeSnapshot(overlapping)).toBe('a subscription snapshot whose settled ranges are out of order');
    const empty = encodeSnapshot({ ...SNAPSHOT, settled: [[1_001, 1_001]] });
    expect(decodeSnapshot(empty)).toBe('a subscription snapshot whose settled ranges are out of order');
  });

  it('detects every single flipped bit', () => {
    const bytes = encodeSnapshot(SNAPSHOT);
    const undetected: number[] = [];
    for (let bit = 0; bit < bytes.length * 8; bit++) {
      const flipped = Buffer.from(bytes);
      flipped[bit >> 3] ^= 1 << (bit & 7);
      if (typeof decodeSnapshot(flipped) !== 'string') undetected.push(bit);
    }
    expect(undetected).toEqual([]);
  });

  it('ends after the last offset it refers to', () => {
    expect(snapshotEnd(SNAPSHOT)).toBe(1_020);
    expect(snapshotEnd(cursorOnly(7))).toBe(7);
  });
});
