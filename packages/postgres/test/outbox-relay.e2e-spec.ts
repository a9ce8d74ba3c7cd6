import { OUTBOX_HEADERS } from '@mmmq/core';
import { BrokerApp, startBroker, waitFor } from '@mmmq/test-support';
import { OutboxRelay } from '../src/relay/outbox-relay';
import { RelayQueries } from '../src/relay/relay-queries';
import { addCommitted, outboxRows, testRelay } from './support/outbox-fixtures';
import { createTestDatabase, TEST_DATABASE_URL, TestDatabase } from './support/test-database';

/** The relay's LISTEN connection in pg_stat_activity: its last statement is the LISTEN or one on the waiting lock. */
const LISTEN_CONNECTION = `(query LIKE 'LISTEN%' OR query LIKE '%advisory%')`;

describe('OutboxRelay', () => {
  let db: TestDatabase;
  let broker: BrokerApp;
  const relays: OutboxRelay[] = [];
  const relay = (options: Parameters<typeof testRelay>[2] = {}) => {
    const made = testRelay(db, broker.url, options);
    relays.push(made);
    return made;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    broker = await startBroker();
  });

  afterEach(async () => {
    await Promise.all(relays.splice(0).map((made) => made.close()));
    // Each test starts from an empty outbox, so a running relay never sees another test's rows.
    await db.pool.query(`DELETE FROM "${db.schema}".mmmq_outbox`);
  });

  afterAll(async () => {
    await broker?.close();
    await db?.drop();
  });

  const rowsOf = async (topic: string) => (await outboxRows(db)).filter((row) => row.topic === topic);
  const allPublished = (topic: string, count: number) => async () => {
    const rows = await rowsOf(topic);
    return rows.length === count && rows.every((row) => row.status === 'PUBLISHED');
  };
  const numbered = (topic: string, count: number, prefix: string) =>
    Array.from({ length: count }, (_, i) => ({ topic, content: { n: i }, id: `${prefix}-${i}` }));

  it('publishes a row with its own id, its content as written and the reserved headers, and marks it PUBLISHED', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await addCommitted(db, [
      {
        topic: 'relay.basic',
        content: { b: 1, a: [1, 'x'], nested: { z: null } },
        id: 'basic-1',
        headers: { tenant: 't1' },
        aggregateType: 'order',
        aggregateId: 'o-1',
        traceparent,
      },
    ]);
    const made = relay();

    expect(await made.relayOnce()).toMatchObject({ leased: 1, published: 1, ambiguous: 0, failed: 0 });

    const [stored] = await broker.stored('relay.basic');
    expect(stored.id).toBe('basic-1');
    expect(stored.content).toBe('{"b":1,"a":[1,"x"],"nested":{"z":null}}');
    expect(stored.headers).toMatchObject({
      tenant: 't1',
      [OUTBOX_HEADERS.messageId]: 'basic-1',
      [OUTBOX_HEADERS.aggregateType]: 'order',
      [OUTBOX_HEADERS.aggregateId]: 'o-1',
      [OUTBOX_HEADERS.traceparent]: traceparent,
    });
    expect(new Date(String(stored.headers[OUTBOX_HEADERS.createdAt])).toISOString()).toBe(stored.headers[OUTBOX_HEADERS.createdAt]);
    expect(stored.headers).not.toHaveProperty(OUTBOX_HEADERS.tracestate);
    const [row] = await rowsOf('relay.basic');
    expect(row).toMatchObject({ status: 'PUBLISHED', attempts: 1, broker_offset: '0', lease_until: null });
    expect(row.lease_owner?.startsWith(`${made.relayId}#`)).toBe(true);
  });

  it('publishes a scheduled row with its due time as deliverAt, not as a header', async () => {
    const deliverAt = new Date(Date.now() + 3_600_000);
    const before = Date.now();
    await addCommitted(db, [
      { topic: 'relay.scheduled', content: 1, id: 'at-1', deliverAt },
      { topic: 'relay.scheduled', content: 2, id: 'delay-1', delayMs: 60_000, headers: { tenant: 't1' } },
      { topic: 'relay.scheduled', content: 3, id: 'now-1' },
    ]);
    expect(await relay().relayOnce()).toMatchObject({ leased: 3, published: 3 });

    const stored = await broker.stored('relay.scheduled');
    expect(stored.map((message) => [message.id, message.dueAt !== undefined])).toEqual([
      ['at-1', true],
      ['delay-1', true],
      ['now-1', false],
    ]);
    expect(stored[0].dueAt).toBe(deliverAt.getTime());
    expect(stored[1].dueAt).toBeGreaterThanOrEqual(before + 60_000);
    expect(stored[1].headers).toMatchObject({ tenant: 't1' });
    for (const message of stored) expect(message.headers).not.toHaveProperty(OUTBOX_HEADERS.deliverAt);
    await expect(addCommitted(db, [{ topic: 'relay.scheduled', content: 4, delayMs: -1 }])).rejects.toThrow('"delayMs"');
    await expect(
      addCommitted(db, [{ topic: 'relay.scheduled', content: 4, headers: { [OUTBOX_HEADERS.deliverAt]: deliverAt.toISOString() } }]),
    ).rejects.toThrow('reserved for the outbox relay');
  });

  it('publishes rows of several topics as one batch', async () => {
    await addCommitted(db, [
      { topic: 'relay.multi-a', content: 1, id: 'multi-1' },
      { topic: 'relay.multi-b', content: 2, id: 'multi-2' },
      { topic: 'relay.multi-a', content: 3, id: 'multi-3' },
    ]);

    expect(await relay().relayOnce()).toMatchObject({ leased: 3, published: 3 });

    expect((await broker.stored('relay.multi-a')).map((message) => message.id)).toEqual(['multi-1', 'multi-3']);
    expect((await broker.stored('relay.multi-b')).map((message) => message.id)).toEqual(['multi-2']);
  });

  it('gives concurrent leases of two relays disjoint rows', async () => {
    const ids = await addCommitted(db, numbered('relay.disjoint', 60, 'disjoint'));
    const [first, second] = [relay(), relay()];
    const leased: string[][] = [[], []];

    for (;;) {
      const leases = await Promise.all([first.leaseBatch(7), second.leaseBatch(7)]);
      leases.forEach((lease, i) => leased[i].push(...lease.rows.map((row) => row.messageId)));
      if (leases.every((lease) => lease.rows.length === 0)) break;
    }

    expect([...leased[0], ...leased[1]].sort()).toEqual([...ids].sort());
    expect(leased[0].filter((id) => leased[1].includes(id))).toEqual([]);
  });

  it('publishes every row exactly once with two relays running on one table', async () => {
    const ids = await addCommitted(db, numbered('relay.pair', 200, 'pair'));
    const [first, second] = [relay({ batchSize: 10 }), relay({ batchSize: 10 })];

    await Promise.all([first.start(), second.start()]);
    await waitFor(allPublished('relay.pair', 200), { message: 'all 200 rows to be PUBLISHED' });

    const stored = (await broker.stored('relay.pair')).map((message) => message.id);
    expect(stored).toHaveLength(200);
    expect([...stored].sort()).toEqual([...ids].sort());
    const rows = await rowsOf('relay.pair');
    // One lease per row: neither relay ever took a row the other held.
    expect(rows.every((row) => row.attempts === 1)).toBe(true);
    const owners = new Set(rows.map((row) => row.lease_owner?.split('#')[0]));
    expect([...owners].every((owner) => owner === first.relayId || owner === second.relayId)).toBe(true);
  });

  it('loses nothing when a relay dies holding a lease: the lease expires and another relay publishes the rows', async () => {
    const ids = await addCommitted(db, numbered('relay.killed', 5, 'killed'));
    const dead = relay();
    const lease = await dead.leaseBatch(10, 1_000);
    expect(lease.rows).toHaveLength(5);
    // Dies without publishing or marking anything.
    await dead.close();

    const rescuer = relay();
    expect((await rescuer.leaseBatch()).rows).toEqual([]);
    await rescuer.start();
    await waitFor(allPublished('relay.killed', 5), { message: 'the abandoned rows to be published by the other relay' });

    expect((await broker.stored('relay.killed')).map((message) => message.id)).toEqual(ids);
    const rows = await rowsOf('relay.killed');
    expect(rows.every((row) => row.attempts === 2 && row.lease_owner?.startsWith(`${rescuer.relayId}#`))).toBe(true);
  });

  it('does not let a relay whose lease expired overwrite the rows another relay leased since', async () => {
    await addCommitted(db, numbered('relay.stale', 3, 'stale'));
    const [slow, fast] = [relay(), relay()];
    const stale = await slow.leaseBatch(10, 200);
    await waitFor(async () => (await fast.leaseBatch(10, 60_000)).rows.length === 3, { message: 'the expired lease to be taken over' });

    const result = await slow.publishLease(stale);

    expect(result).toMatchObject({ published: 0, released: 3 });
    const rows = await rowsOf('relay.stale');
    expect(rows.every((row) => row.status === 'PENDING' && row.lease_owner?.startsWith(`${fast.relayId}#`))).toBe(true);
  });

  it('wakes on NOTIFY at once, without waiting for the poll interval, also after its LISTEN connection was killed', async () => {
    const applicationName = `relay-notify-${process.pid}`;
    const made = relay({
      pollIntervalMs: 600_000,
      reconnectDelayMs: 100,
      connection: { connectionString: TEST_DATABASE_URL, application_name: applicationName },
    });
    await made.start();
    await addCommitted(db, [{ topic: 'relay.notify', content: 1, id: 'notify-1' }]);
    await waitFor(allPublished('relay.notify', 1), { message: 'the first row to be published' });

    await addCommitted(db, [{ topic: 'relay.notify', content: 2, id: 'notify-2' }]);
    await waitFor(allPublished('relay.notify', 2), { message: 'the NOTIFY to wake the idle relay', deadlineMs: 15_000 });

    const { rows } = await db.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND ${LISTEN_CONNECTION}`,
      [applicationName],
    );
    expect(rows).toHaveLength(1);
    await waitFor(
      async () =>
        (await db.pool.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND ${LISTEN_CONNECTION}`, [applicationName])).rows
          .length === 1,
      { message: 'the relay to LISTEN again' },
    );
    await addCommitted(db, [{ topic: 'relay.notify', content: 3, id: 'notify-3' }]);
    await waitFor(allPublished('relay.notify', 3), { message: 'the NOTIFY to wake the relay after it reconnected', deadlineMs: 15_000 });
  });

  it('keeps the order of writing per aggregate: no row is leased while an earlier one of its aggregate is unpublished', async () => {
    await addCommitted(db, [
      { topic: 'relay.order', content: 1, id: 'x-1', aggregateType: 'order', aggregateId: 'x' },
      { topic: 'relay.order', content: 2, id: 'x-2', aggregateType: 'order', aggregateId: 'x' },
      { topic: 'relay.order', content: 3, id: 'y-1', aggregateType: 'order', aggregateId: 'y' },
      { topic: 'relay.order', content: 4, id: 'cart-x-1', aggregateType: 'cart', aggregateId: 'x' },
      { topic: 'relay.order', content: 5, id: 'loose-1' },
    ]);
    const made = relay({ orderByAggregate: true });

    const first = await made.leaseBatch();
    expect(first.rows.map((row) => row.messageId)).toEqual(['x-1', 'y-1', 'cart-x-1', 'loose-1']);
    expect((await made.leaseBatch()).rows).toEqual([]);
    // An AMBIGUOUS predecessor holds its successors back too.
    await db.pool.query(`UPDATE "${db.schema}".mmmq_outbox SET status = 'AMBIGUOUS', lease_until = NULL WHERE message_id = 'x-1'`);
    expect((await made.leaseBatch()).rows.map((row) => row.messageId)).toEqual(['x-1']);

    await made.publishLease({ owner: first.owner, rows: first.rows.filter((row) => row.messageId !== 'x-1') });
    expect((await made.leaseBatch()).rows).toEqual([]);
  });

  it('publishes the rows of each aggregate in order of writing when started', async () => {
    const messages = Array.from({ length: 30 }, (_, i) => ({
      topic: 'relay.ordered',
      content: i,
      id: `ordered-${i}`,
      aggregateType: 'order',
      aggregateId: `agg-${i % 3}`,
    }));
    await addCommitted(db, messages);
    await Promise.all([relay({ orderByAggregate: true, batchSize: 4 }).start(), relay({ orderByAggregate: true, batchSize: 4 }).start()]);
    await waitFor(allPublished('relay.ordered', 30), { message: 'the ordered rows to be published' });

    const stored = (await broker.stored('relay.ordered')).map((message) => Number(message.content));
    for (const aggregate of [0, 1, 2]) {
      const sequence = stored.filter((n) => n % 3 === aggregate);
      expect(sequence).toEqual([...sequence].sort((a, b) => a - b));
    }
  });

  it('claims through the partial index, not by scanning PUBLISHED rows', async () => {
    await db.pool.query(
      `INSERT INTO "${db.schema}".mmmq_outbox (message_id, topic, content, status, published_at) ` +
        "SELECT 'old-' || n, 'relay.index', '1', 'PUBLISHED', now() FROM generate_series(1, 20000) AS n",
    );
    await addCommitted(db, [{ topic: 'relay.index', content: 1, id: 'index-1' }]);
    await db.pool.query(`ANALYZE "${db.schema}".mmmq_outbox`);

    for (const orderByAggregate of [false, true]) {
      const { rows } = await db.pool.query(`EXPLAIN ${new RelayQueries(db.schema, orderByAggregate).lease}`, [100, 'explain', 1000]);
      const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(plan).toMatch(/mmmq_outbox_claimable(?!_)/);
      expect(plan).not.toMatch(/Seq Scan on mmmq_outbox/);
    }
  });

  it('deletes only PUBLISHED rows older than the retention age, in bounded batches', async () => {
    await addCommitted(db, numbered('relay.retention', 8, 'ret'));
    const setRows = (ids: string[], assignments: string) =>
      db.pool.query(`UPDATE "${db.schema}".mmmq_outbox SET ${assignments} WHERE message_id = ANY($1)`, [ids]);
    await setRows(['ret-0', 'ret-1', 'ret-2', 'ret-3', 'ret-4'], `status = 'PUBLISHED', published_at = now() - interval '8 days'`);
    await setRows(['ret-5'], `status = 'PUBLISHED', published_at = now() - interval '1 day'`);
    await setRows(['ret-6'], `created_at = now() - interval '30 days'`);
    await setRows(['ret-7'], `status = 'FAILED', published_at = now() - interval '30 days'`);
    const made = relay();

    expect(await made.purgePublished(7 * 24 * 60 * 60 * 1000, 2)).toBe(5);

    expect((await rowsOf('relay.retention')).map((row) => row.message_id)).toEqual(['ret-5', 'ret-6', 'ret-7']);
  });

  it('runs the retention job while started', async () => {
    await addCommitted(db, numbered('relay.retention-job', 3, 'job'));
    const made = relay({ retention: { maxAgeMs: 60_000, intervalMs: 50, batchSize: 1 } });
    await made.start();
    await waitFor(allPublished('relay.retention-job', 3), { message: 'the rows to be published' });
    await db.pool.query(
      `UPDATE "${db.schema}".mmmq_outbox SET published_at = now() - interval '2 minutes' WHERE message_id IN ('job-0', 'job-2')`,
    );

    await waitFor(async () => (await rowsOf('relay.retention-job')).length === 1, { message: 'the retention job to delete the old rows' });
    expect((await rowsOf('relay.retention-job'))[0].message_id).toBe('job-1');
  });
});
