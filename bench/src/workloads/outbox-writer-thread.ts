import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Pool, type PoolClient } from 'pg';
import { Outbox, pgAdapter } from '@mmmq/postgres';
import { content, encode, type BenchContent } from '../payload';
import { OutboxTables } from '../systems/outbox-tables';
import { PG_CONNECTION } from '../systems/outbox-pipeline';

/** How a writer thread adds the outbox row: the system's own outbox code. */
export type OutboxWriterKind = 'mmmq' | 'tables';

interface WriterThreadData {
  kind: OutboxWriterKind;
  schema: string;
  topic: string;
  messages: number;
  writers: number;
  size: number;
  /** Business commit times, main thread's performance.now() scale; one Float64 per message. */
  committedAt: SharedArrayBuffer;
  /** Main thread's performance.timeOrigin: the thread's times are moved onto its scale. */
  origin: number;
}

/**
 * Runs the workload's writers (`writers` connections, one business transaction per message) on a thread of their
 * own, so their round trips do not wait for the event loop the system's relay and consumer run on. Resolves once all
 * are committed; the commit times are in `committedAt`.
 */
export function runWritersOnThread(data: Omit<WriterThreadData, 'origin'>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const worker = new Worker(__filename, { workerData: { ...data, origin: performance.timeOrigin } satisfies WriterThreadData });
    worker.once('message', (message: { error?: string }) => (message.error ? reject(new Error(message.error)) : resolve()));
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the writer thread exited with ${code}`))));
  });
}

async function writeAll(data: WriterThreadData): Promise<void> {
  const shift = performance.timeOrigin - data.origin;
  const now = () => performance.now() + shift;
  const committedAt = new Float64Array(data.committedAt);
  const pool = new Pool({ ...PG_CONNECTION, max: data.writers });
  pool.on('error', () => undefined);
  const outbox = new Outbox({ adapter: pgAdapter, schema: data.schema });
  const tables = new OutboxTables(data.schema);
  const add = (client: PoolClient, id: string, message: BenchContent): Promise<unknown> =>
    data.kind === 'mmmq'
      ? outbox.add(client, data.topic, message, { id })
      : tables.add(client, id, data.topic, encode(message).toString('utf8'));
  let next = 0;
  const writer = async () => {
    const client = await pool.connect();
    try {
      for (let seq = next++; seq < data.messages; seq = next++) {
        await client.query('BEGIN');
        await client.query(`INSERT INTO "${data.schema}".orders (seq, amount) VALUES ($1, $2)`, [seq, seq % 1000]);
        await add(client, randomUUID(), content(seq, now(), data.size));
        await client.query('COMMIT');
        committedAt[seq] = now();
      }
    } catch (error) {
      next = data.messages;
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };
  try {
    await Promise.all(Array.from({ length: data.writers }, writer));
  } finally {
    await pool.end();
  }
}

if (!isMainThread && parentPort !== null) {
  const port = parentPort;
  writeAll(workerData as WriterThreadData).then(
    () => port.postMessage({}),
    (error: Error) => port.postMessage({ error: error.message }),
  );
}
