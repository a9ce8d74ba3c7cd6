import { createProducer } from '@mmmq/producer/internal';
import { BrokerApp, startBroker } from '@mmmq/test-support';
import { addCommitted, outboxRows, testRelay } from './support/outbox-fixtures';
import { createTestDatabase, TestDatabase } from './support/test-database';

describe('OutboxRelay on a broker whose topics are nonPersistent by default', () => {
  let db: TestDatabase;
  let broker: BrokerApp;

  beforeAll(async () => {
    db = await createTestDatabase();
    broker = await startBroker({ topics: { defaults: { deliveryMode: 'nonPersistent' } } });
  });

  afterAll(async () => {
    await broker?.close();
    await db?.drop();
  });

  it('publishes relayed messages persistent, so a PUBLISHED row is durable and has its offset', async () => {
    // The topic's default really is nonPersistent: a plain publish is acknowledged on receipt, without an offset.
    const producer = createProducer({ broker: broker.url, maxRetryCount: 0 });
    try {
      expect(await producer.produceBatch([{ topic: 'durable.orders', content: 'plain' }])).toEqual([
        expect.not.objectContaining({ offset: expect.anything() }),
      ]);
    } finally {
      await producer.close();
    }
    await addCommitted(db, [{ topic: 'durable.orders', content: { n: 1 }, id: 'durable-1' }]);
    const relay = testRelay(db, broker.url);

    try {
      expect(await relay.relayOnce()).toMatchObject({ leased: 1, published: 1 });
    } finally {
      await relay.close();
    }

    expect(await outboxRows(db)).toEqual([expect.objectContaining({ message_id: 'durable-1', status: 'PUBLISHED', broker_offset: '1' })]);
  });
});
