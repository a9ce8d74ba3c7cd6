import { rmSync, truncateSync, writeFileSync } from 'node:fs';
import type { Random } from '../random';

/** Damage to a consumer's checkpoint file (8 bytes, big-endian: the next offset to deliver). */
export interface CheckpointDamage {
  name: string;
  describe: string;
  apply(path: string, tailOffset: number, random: Random): void;
}

export const CHECKPOINT_DAMAGES: CheckpointDamage[] = [
  { name: 'checkpoint-torn', describe: 'cut to 3 bytes (a torn write)', apply: (path) => truncateSync(path, 3) },
  { name: 'checkpoint-deleted', describe: 'deleted', apply: (path) => rmSync(path) },
  { name: 'checkpoint-empty', describe: 'emptied (0 bytes)', apply: (path) => truncateSync(path, 0) },
  {
    name: 'checkpoint-beyond-tail',
    describe: 'set to 1,000 past the end of the log',
    apply: (path, tail) => writeFileSync(path, u64(tail + 1000)),
  },
  {
    name: 'checkpoint-all-ones',
    describe: 'set to 0xFFFFFFFFFFFFFFFF',
    apply: (path) => writeFileSync(path, Buffer.alloc(8, 0xff)),
  },
  {
    name: 'checkpoint-garbage-long',
    describe: 'replaced by 20 random bytes',
    apply: (path, _tail, random) => writeFileSync(path, random.bytes(20)),
  },
];

/** A damaged `dispatchers.json`: the broker must refuse to start and say why (SPEC §3). */
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
    content: () =>
      Buffer.from(JSON.stringify([0, 1].map(() => ({ consumerId: 'twice', host: 'http://127.0.0.1:1', pattern: '**' })))),
  },
  {
    name: 'unknown protocol',
    content: () =>
      Buffer.from(JSON.stringify([{ consumerId: 'x', host: { protocol: 'GOPHER', address: '127.0.0.1', port: 1 }, pattern: '**' }])),
  },
  { name: 'invalid pattern', content: () => Buffer.from(JSON.stringify([{ consumerId: 'x', host: 'http://127.0.0.1:1', pattern: '' }])) },
  { name: 'invalid consumerId', content: () => Buffer.from(JSON.stringify([{ consumerId: '../x', host: 'http://127.0.0.1:1', pattern: '**' }])) },
  { name: 'deeply nested', content: () => Buffer.from('['.repeat(100_000) + ']'.repeat(100_000)) },
];

function u64(value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(value));
  return bytes;
}
