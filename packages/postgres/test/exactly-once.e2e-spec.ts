import { startBroker, waitFor, type BrokerApp } from '@mmmq/test-support';
import type { ClientBase } from 'pg';
import { Inbox } from '../src/inbox/inbox';
import { pgAdapter } from '../src/sql/pg-adapter';
import { addCommitted, outboxRows, testRelay } from './support/outbox-fixtures';
import { startResponseDroppingProxy } from './support/response-dropping-proxy';
import { createTestDatabase, TestDatabase } from './support/test-database';

const CONSUMER = 'billing.orders';
const TOPIC = 'order.placed';

interface Fetched {
  lease: string;
  id: string;
  content: { orderId: string };
  deliveryCount: number;
}

/**
 * The whole exactly-once story on the real parts (docs/exactly-once.md): outbox → relay → broker → consumer with inbox. The relay's first
 * publish is stored but its answer lost (AMBIGUOUS); the retry with the same id is answered with the original ACK
 * (broker de-duplication: one copy); the consumer's first acknowledgement is lost after its commit (the broker
 * delivers again); the inbox keeps the side effect to one.
 */
describe('exactly-once effect: outbox, broker de-duplication and inbox together', () => {
  let db: TestDatabase;
  let broker: BrokerApp;

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query(`CREATE TABLE "${db.schema}".charges (order_id text NOT NULL, message_id text NOT NULL)`);
    broker = await startBroker();
  });

  afterAll(async () => {
    await broker?.close();
    await db?.drop();
  });

  async function fetchOne(): Promise<Fetched> {
    let message: Fetched | undefined;
    await waitFor(
      async () => {
        const { body } = await broker.request('POST', `/mmmq/consumers/${CONSUMER}/fetch`, { max: 1, waitMs: 500 });
        message = body.messages[0];
        return message !== undefined;
      },
      { message: `a delivery for ${CONSUMER}` },
    );
    return message!;
  }

  /** The consumer's work: the inbox reservation and the charge in one transaction. */
  async function charge(inbox: Inbox<ClientBase>, message: Fetched): Promise<'processed' | 'duplicate'> {
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      const outcome = await inbox.process(client, message.id, CONSUMER, (tx) =>
        tx.query(`INSERT INTO "${db.schema}".charges VALUES ($1, $2)`, [message.content.orderId, message.id]),
      );
      await client.query('COMMIT');
      return outcome.status;
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  }

  it('stores one copy after an AMBIGUOUS publish is retried, and charges once though the message is delivered twice', async () => {
    const proxy = await startResponseDroppingProxy(Number(new URL(broker.url).port));
    const relay = testRelay(db, proxy.url, { producer: { broker: proxy.url, maxRetryCount: 0, timeoutMs: 500 } });
    const inbox = new Inbox({ adapter: pgAdapter, schema: db.schema });
    try {
      expect((await broker.request('POST', '/mmmq/dispatchers', { consumerId: CONSUMER, pattern: TOPIC })).status).toBe(201);
      await addCommitted(db, [{ topic: TOPIC, content: { orderId: 'o-1' }, id: 'order-placed-o-1' }]);

      expect(await relay.relayOnce()).toMatchObject({ ambiguous: 1 });
      proxy.dropping = false;
      await waitFor(async () => (await relay.relayOnce()).published === 1, { message: 'the AMBIGUOUS row to be published on a retry' });

      const [row] = await outboxRows(db);
      expect(row).toMatchObject({ status: 'PUBLISHED', attempts: 2 });
      // The broker stored the first attempt; the retry got its ACK back, and nothing more was stored.
      const stored = await broker.stored(TOPIC);
      expect(stored.map(({ id }) => id)).toEqual(['order-placed-o-1']);
      expect(Number(row.broker_offset)).toBe(0);

      const first = await fetchOne();
      expect(await charge(inbox, first)).toBe('processed');
      // The acknowledgement is lost after the commit: the broker delivers the message again.
      await broker.request('POST', `/mmmq/consumers/${CONSUMER}/nack`, { leases: [first.lease] });
      const second = await fetchOne();
      expect(second).toMatchObject({ id: 'order-placed-o-1', deliveryCount: 2 });
      expect(await charge(inbox, second)).toBe('duplicate');
      expect((await broker.request('POST', `/mmmq/consumers/${CONSUMER}/ack`, { leases: [second.lease] })).status).toBe(200);

      const { rows } = await db.pool.query(`SELECT order_id FROM "${db.schema}".charges`);
      expect(rows).toEqual([{ order_id: 'o-1' }]);
      await broker.caughtUp(CONSUMER, TOPIC);
    } finally {
      await relay.close();
      await proxy.close();
    }
  });
});
