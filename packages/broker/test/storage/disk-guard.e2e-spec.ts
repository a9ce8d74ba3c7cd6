import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mountSmallFilesystem, waitFor } from '@mmmq/test-support';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { STREAM_ON, StreamClient } from '../stream/stream-client';

const MiB = 2 ** 20;
const DISK_BYTES = 64 * MiB;
/** Leaves about 32 MiB: the guard (24 MiB) refuses after some 8 MiB of journal and topic files. */
const FILLER_BYTES = 32 * MiB;
const MIN_FREE_BYTES = 24 * MiB;
const CHECK_INTERVAL_MS = 50;
const TOPIC = 'disk.guarded';
const BATCH = 40;
const CONTENT = 'x'.repeat(16 * 1024);
const REFUSAL = /^The broker's disk has [\d.]+ MiB free, below the disk guard's 24 MiB \(persistence\.diskGuard\.minFreeBytes\)/;

const workDir = mkdtempSync(join(tmpdir(), 'mmmq-disk-guard-'));
const disk = mountSmallFilesystem(workDir, DISK_BYTES);
if (!disk.mounted) process.stderr.write(`disk-guard.e2e-spec SKIPPED: ${disk.reason}\n`);
/** Skipped, with the reason printed, where no small file system can be mounted (not root, no loop devices). */
const onSmallDisk = disk.mounted ? it : it.skip;

describe('the disk guard refuses publishes before the disk is full and resumes by itself', () => {
  let broker: BrokerApp | undefined;
  const clients: StreamClient[] = [];

  afterAll(async () => {
    for (const client of clients) client.close();
    await broker?.close();
    if (disk.mounted) disk.unmount();
    rmSync(workDir, { recursive: true, force: true });
  });

  onSmallDisk('answers 503 with Retry-After on HTTP and the stream, stores nothing refused, and loses nothing acknowledged', async () => {
    if (!disk.mounted) return;
    const filler = join(disk.dir, 'filler');
    writeFileSync(filler, Buffer.alloc(FILLER_BYTES, 1));
    broker = await startBroker({
      ...STREAM_ON,
      persistence: { rootDir: join(disk.dir, 'data'), diskGuard: { minFreeBytes: MIN_FREE_BYTES, checkIntervalMs: CHECK_INTERVAL_MS } },
    });
    const acked: string[] = [];
    let refused: { status: number; retryAfter: string | null; body: any; ids: string[] } | undefined;
    await waitFor(
      async () => {
        const messages = Array.from({ length: BATCH }, () => ({ id: randomUUID(), topic: TOPIC, content: CONTENT }));
        const response = await broker!.post('/mmmq/messages/batch', JSON.stringify({ messages }), { 'content-type': 'application/json' });
        const ids = messages.map((message) => message.id);
        if (response.status === 200) acked.push(...ids);
        else refused = { status: response.status, retryAfter: response.headers.get('retry-after'), body: response.body, ids };
        return refused !== undefined;
      },
      { deadlineMs: 60_000, message: () => `a refusal; ${acked.length} messages acknowledged so far`, pollMs: 0 },
    );
    expect(acked.length).toBeGreaterThan(0);
    expect(refused).toMatchObject({
      status: 503,
      retryAfter: '1',
      body: { acknowledgement: 'NACK', message: expect.stringMatching(REFUSAL) },
    });

    const single = await broker.post('/mmmq/messages', JSON.stringify({ topic: TOPIC, content: 'single' }));
    expect(single.status).toBe(503);
    expect(single.headers.get('retry-after')).toBe('1');
    const stream = StreamClient.connect(broker);
    clients.push(stream);
    stream.send(1, { topic: TOPIC, content: 'over the stream' });
    expect(await stream.answer(1)).toEqual({
      status: 503,
      body: { acknowledgement: 'NACK', message: expect.stringMatching(REFUSAL), retryAfterSeconds: 1 },
    });

    rmSync(filler);
    const freedAt = Date.now();
    await waitFor(async () => (await broker!.post('/mmmq/messages', JSON.stringify({ topic: TOPIC, content: 'after' }))).status === 200, {
      deadlineMs: 5_000,
      message: 'publishing to resume after space was freed',
      pollMs: CHECK_INTERVAL_MS,
    });
    expect(Date.now() - freedAt).toBeLessThan(5_000);
    const fresh = StreamClient.connect(broker);
    clients.push(fresh);
    fresh.send(1, { topic: TOPIC, content: 'stream after' });
    expect((await fresh.answer(1)).status).toBe(200);

    const stored = await broker.stored(TOPIC);
    const storedIds = new Set(stored.map((message) => message.id));
    expect(acked.filter((id) => !storedIds.has(id))).toEqual([]);
    expect(refused!.ids.filter((id) => storedIds.has(id))).toEqual([]);
    expect(stored.map((message) => message.content)).not.toContain('"single"');
    expect(stored.map((message) => message.content)).not.toContain('"over the stream"');
    expect(stored.slice(-2).map((message) => message.content)).toEqual(['"after"', '"stream after"']);
  });
});
