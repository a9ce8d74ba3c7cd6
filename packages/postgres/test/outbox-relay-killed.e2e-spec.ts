import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { startBroker, waitFor, type BrokerApp } from '@mmmq/test-support';
import { addCommitted, outboxRows, testRelay } from './support/outbox-fixtures';
import { startResponseDroppingProxy, type ResponseDroppingProxy } from './support/response-dropping-proxy';
import { createTestDatabase, TEST_DATABASE_URL, TestDatabase } from './support/test-database';

const REPOSITORY_ROOT = resolve(__dirname, '../../..');
const CHILD_MAIN = resolve(__dirname, 'support/relay-child.main.ts');
/** ts-node loads in a few seconds, more on a busy two-core machine. */
const CHILD_DEADLINE_MS = 60_000;

describe('OutboxRelay killed with SIGKILL in the middle of a batch', () => {
  let db: TestDatabase;
  let broker: BrokerApp;
  let proxy: ResponseDroppingProxy;

  beforeAll(async () => {
    db = await createTestDatabase();
    broker = await startBroker();
    proxy = await startResponseDroppingProxy(Number(new URL(broker.url).port));
  });

  afterAll(async () => {
    await proxy?.close();
    await broker?.close();
    await db?.drop();
  });

  it('loses no row: once its lease expires another relay publishes them all, with the same ids', async () => {
    const ids = await addCommitted(
      db,
      Array.from({ length: 20 }, (_, i) => ({ topic: 'killed.batch', content: { n: i }, id: `sigkill-${i}` })),
    );
    const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', CHILD_MAIN], {
      cwd: REPOSITORY_ROOT,
      env: {
        ...process.env,
        TS_NODE_PROJECT: resolve(REPOSITORY_ROOT, 'tsconfig.json'),
        DATABASE_URL: TEST_DATABASE_URL,
        BROKER_URL: proxy.url,
        SCHEMA: db.schema,
        LEASE_MS: '3000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | null>((done) => child.once('exit', (_code, signal) => done(signal)));
    try {
      // Leased, sent, waiting for an answer the proxy drops: the middle of a batch.
      await waitFor(() => output.includes('LEASED 20') && proxy.dropped() > 0, {
        deadlineMs: CHILD_DEADLINE_MS,
        message: () => `the child relay to lease and send the batch\n--- output ---\n${output}`,
      });
    } finally {
      child.kill('SIGKILL');
    }
    expect(await exited).toBe('SIGKILL');
    expect(output).not.toContain('MARKED');
    const leased = await outboxRows(db);
    expect(leased.every((row) => row.status === 'PENDING' && row.lease_owner?.startsWith('doomed#'))).toBe(true);

    const rescuer = testRelay(db, broker.url);
    try {
      await rescuer.start();
      await waitFor(async () => (await outboxRows(db)).every((row) => row.status === 'PUBLISHED'), {
        message: 'the rescuing relay to publish the rows once the lease expired',
      });
    } finally {
      await rescuer.close();
    }

    const rows = await outboxRows(db);
    expect(rows.every((row) => row.attempts === 2 && row.lease_owner?.startsWith(`${rescuer.relayId}#`))).toBe(true);
    // The killed relay's request reached the broker too: every stored copy carries one of the rows' ids.
    const stored = (await broker.stored('killed.batch')).map((message) => message.id);
    expect(new Set(stored)).toEqual(new Set(ids));
  });
});
