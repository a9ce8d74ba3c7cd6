import { readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { checkpointLayout, decodeCheckpoint, encodeCheckpointV1, encodeCheckpointV2 } from '../format/checkpoint-format';
import type { Random } from '../random';

/**
 * Damage to a consumer's checkpoint file (checkpoint-format.ts: an 8-byte cursor, or a CRC'd v2 snapshot). Every
 * one must make the broker restart that consumer at offset 0 — redeliver, never skip; `warns`: with a warning
 * naming the topic and consumer (a missing or empty file is a subscription whose file was never written: it
 * starts at its `startFrom`, 0 here, silently).
 */
export interface CheckpointDamage {
  name: string;
  describe: string;
  warns: boolean;
  apply(path: string, tailOffset: number, random: Random): void;
}

export const CHECKPOINT_DAMAGES: CheckpointDamage[] = [
  { name: 'checkpoint-torn', describe: 'cut to 3 bytes (a torn write)', warns: true, apply: (path) => truncateSync(path, 3) },
  { name: 'checkpoint-deleted', describe: 'deleted', warns: false, apply: (path) => rmSync(path) },
  { name: 'checkpoint-empty', describe: 'emptied (0 bytes)', warns: false, apply: (path) => truncateSync(path, 0) },
  {
    name: 'checkpoint-beyond-tail',
    describe: 'set to 1,000 past the end of the log',
    warns: true,
    apply: (path, tail) => writeFileSync(path, encodeCheckpointV1(tail + 1000)),
  },
  {
    name: 'checkpoint-all-ones',
    describe: 'set to 0xFFFFFFFFFFFFFFFF',
    warns: true,
    apply: (path) => writeFileSync(path, Buffer.alloc(8, 0xff)),
  },
  {
    name: 'checkpoint-garbage-long',
    describe: 'replaced by 20 random bytes',
    warns: true,
    apply: (path, _tail, random) => writeFileSync(path, random.bytes(20)),
  },
  {
    name: 'checkpoint-v2-bit-flip',
    describe: 'one bit flipped anywhere in the v2 snapshot the broker wrote',
    warns: true,
    apply: (path, _tail, random) => {
      const bytes = brokerSnapshot(path);
      writeFileSync(path, flipBit(bytes, [0, bytes.length], random));
    },
  },
  {
    name: 'checkpoint-v2-holes-bit-flip',
    describe: 'a v2 snapshot with settled ranges and delivery counts, one bit flipped in those',
    warns: true,
    apply: (path, tail, random) => {
      const bytes = snapshotWithHoles(tail);
      const layout = checkpointLayout(bytes);
      if (typeof layout === 'string') throw new Error(`The forged snapshot does not read: ${layout}`);
      writeFileSync(path, flipBit(bytes, [layout.ranges[0], layout.counts[1]], random));
    },
  },
  {
    name: 'checkpoint-v2-torn',
    describe: 'the v2 snapshot the broker wrote cut short (a torn write)',
    warns: true,
    apply: (path, _tail, random) => truncateSync(path, random.int(8, brokerSnapshot(path).length - 1)),
  },
  {
    name: 'checkpoint-v2-beyond-tail',
    describe: 'a v2 snapshot with a valid CRC whose cursor is 1,000 past the end of the log',
    warns: true,
    apply: (path, tail) =>
      writeFileSync(path, encodeCheckpointV2({ cursor: tail + 1000, deliveredMark: tail + 1100, settled: [], counts: [] })),
  },
  {
    name: 'checkpoint-v2-range-beyond-tail',
    describe: 'a v2 snapshot with a valid CRC, its cursor in the log, a settled range past its end',
    warns: true,
    apply: (path, tail) => {
      const cursor = Math.max(0, tail - 4);
      writeFileSync(path, encodeCheckpointV2({ cursor, deliveredMark: tail + 100, settled: [[tail + 5, tail + 10]], counts: [] }));
    },
  },
  {
    name: 'checkpoint-v2-ranges-unordered',
    describe: 'a v2 snapshot with a valid CRC whose settled ranges are out of order',
    warns: true,
    apply: (path, tail) => {
      const settled: Array<[number, number]> = [
        [Math.floor(tail / 2), Math.floor(tail / 2) + 2],
        [2, 4],
      ];
      writeFileSync(path, encodeCheckpointV2({ cursor: 1, deliveredMark: tail, settled, counts: [] }));
    },
  },
];

/**
 * The checkpoint file as the broker left it, as a v2 snapshot. A subscription the broker stopped cleanly drops its
 * mark's reserve and, with nothing else to keep, writes the 8-byte cursor: that state is written back as the same
 * state in v2 form (mark at the cursor, nothing settled past it, no counts), so the damage has a snapshot to hit.
 */
function brokerSnapshot(path: string): Buffer {
  const bytes = readFileSync(path);
  const state = decodeCheckpoint(bytes);
  if (typeof state !== 'string' && state.form === 'v1') {
    const snapshot = encodeCheckpointV2({ cursor: state.cursor, deliveredMark: state.deliveredMark, settled: [], counts: [] });
    writeFileSync(path, snapshot);
    return snapshot;
  }
  const layout = checkpointLayout(bytes);
  if (typeof layout === 'string') throw new Error(`${path} is not the v2 snapshot this damage needs: ${layout}`);
  return bytes;
}

/** A state a consumer acknowledging out of order could leave: holes, settled ranges, redelivered and NACKed offsets. */
function snapshotWithHoles(tail: number): Buffer {
  const cursor = Math.max(0, tail - 12);
  return encodeCheckpointV2({
    cursor,
    deliveredMark: tail + 100,
    settled: [
      [cursor + 2, cursor + 5],
      [cursor + 7, cursor + 8],
    ],
    counts: [
      { offset: cursor, deliveries: 3, nacks: 1 },
      { offset: cursor + 5, deliveries: 2, nacks: 0 },
    ],
  });
}

/** A copy of `bytes` with one bit of `[from, to)` flipped. */
function flipBit(bytes: Buffer, [from, to]: [number, number], random: Random): Buffer {
  const copy = Buffer.from(bytes);
  copy[random.int(from, to - 1)] ^= 1 << random.int(0, 7);
  return copy;
}

/** A damaged `dispatchers.json`: the broker must refuse to start and say why (docs/delivery.md § Dispatchers). */
export interface DispatchersFileDamage {
  name: string;
  content: (valid: string) => Buffer;
}

export const DISPATCHERS_FILE_DAMAGES: DispatchersFileDamage[] = [
  { name: 'broken JSON', content: (valid) => Buffer.from(valid.slice(0, -1) + ',]') },
  { name: 'torn write (first half)', content: (valid) => Buffer.from(valid.slice(0, Math.floor(valid.length / 2))) },
  { name: 'empty file (0 bytes)', content: () => Buffer.alloc(0) },
  { name: 'zero-filled', content: (valid) => Buffer.alloc(valid.length) },
  { name: 'binary garbage', content: () => Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x5b, 0x80, 0x81]) },
  { name: 'not an array', content: () => Buffer.from('{"consumerId":"a","host":"http://127.0.0.1:1","pattern":"**"}') },
  { name: 'null', content: () => Buffer.from('null') },
  {
    name: 'duplicate consumerId',
    content: () => Buffer.from(JSON.stringify([0, 1].map(() => ({ consumerId: 'twice', host: 'http://127.0.0.1:1', pattern: '**' })))),
  },
  {
    name: 'unknown protocol',
    content: () =>
      Buffer.from(JSON.stringify([{ consumerId: 'x', host: { protocol: 'GOPHER', address: '127.0.0.1', port: 1 }, pattern: '**' }])),
  },
  { name: 'invalid pattern', content: () => Buffer.from(JSON.stringify([{ consumerId: 'x', host: 'http://127.0.0.1:1', pattern: '' }])) },
  {
    name: 'invalid consumerId',
    content: () => Buffer.from(JSON.stringify([{ consumerId: '../x', host: 'http://127.0.0.1:1', pattern: '**' }])),
  },
  { name: 'deeply nested', content: () => Buffer.from('['.repeat(100_000) + ']'.repeat(100_000)) },
];
