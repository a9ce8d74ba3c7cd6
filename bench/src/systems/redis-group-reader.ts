import type { Redis } from 'ioredis';
import { decode, type BenchContent } from '../payload';
import { log, sleep } from '../services';

/** ioredis 6 speaks RESP3 by default, where XREADGROUP's stream → entries map arrives flattened. */
type ReadReply = (string | [id: string, fields: string[]][])[] | null;

export interface GroupReader {
  /** The connection this reader uses alone (a blocking XREADGROUP holds it). */
  connection: Redis;
  /** For log lines. */
  label: string;
  group: string;
  /** The consumer's name within the group. */
  consumer: string;
  topics: string[];
  /** Entries read per XREADGROUP (per stream). */
  count: number;
  /** XREADGROUP BLOCK: how long a read waits for the first entry. */
  blockMs: number;
  isOpen(): boolean;
  onEntry(content: BenchContent): void;
}

/**
 * One consumer of a Redis consumer group: XREADGROUP COUNT … BLOCK … on its own connection, each entry handled,
 * then one XACK for the batch, pipelined ahead of the next read on the same connection. Runs until `isOpen()`
 * turns false (within one `blockMs`).
 */
export async function readGroup(r: GroupReader): Promise<void> {
  const args = [
    'GROUP',
    r.group,
    r.consumer,
    'COUNT',
    String(r.count),
    'BLOCK',
    String(r.blockMs),
    'STREAMS',
    ...r.topics,
    ...r.topics.map(() => '>'),
  ];
  while (r.isOpen()) {
    let reply: ReadReply;
    try {
      reply = (await r.connection.call('XREADGROUP', args)) as ReadReply;
    } catch (error) {
      if (r.isOpen()) log(`${r.label}: XREADGROUP: ${(error as Error).message}`);
      await sleep(50);
      continue;
    }
    if (!reply) continue;
    for (let s = 0; s < reply.length; s += 2) {
      const stream = reply[s] as string;
      const entries = reply[s + 1] as [id: string, fields: string[]][];
      const ids: string[] = new Array(entries.length);
      for (let i = 0; i < entries.length; i++) {
        const [id, fields] = entries[i];
        r.onEntry(decode(fields[1]));
        ids[i] = id;
      }
      // Pipelined ahead of the next read on the same connection.
      r.connection.xack(stream, r.group, ...ids).catch((error: Error) => log(`${r.label}: XACK: ${error.message}`));
    }
  }
}
