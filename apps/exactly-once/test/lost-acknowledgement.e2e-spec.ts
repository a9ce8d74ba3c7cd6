import { MmmqConsumerHealthIndicator } from '@mmmq/consumer';
import { BrokerApp, FAST_BACKOFF, startBroker, waitFor } from '@mmmq/test-support';
import { BILLING_CONSUMER_ID } from '../src/billing/billing.listener';
import { LostAcknowledgements } from '../src/billing/lost-acknowledgements';
import { ORDER_PLACED } from '../src/orders/order-placed';
import { RunningExample, startExample, TEST_DATABASE_URL, testSchema, TestSchema } from './exactly-once-app.fixture';

describe('BILLING_LOSE_FIRST_ACK=1: every message is delivered twice, and billing still charges once', () => {
  let schema: TestSchema;
  let broker: BrokerApp;
  let example: RunningExample;

  beforeAll(async () => {
    schema = testSchema();
    broker = await startBroker({ delivery: FAST_BACKOFF });
    example = await startExample({ broker: broker.url, databaseUrl: TEST_DATABASE_URL, schema: schema.name, loseFirstAck: true });
    const health = example.app.get(MmmqConsumerHealthIndicator);
    await waitFor(() => health.check().status === 'up', { message: "billing's dispatcher to be registered" });
  });
  afterAll(async () => {
    await example?.app.close();
    await broker?.close();
    await schema?.drop();
  });

  it('charges each order once although its first acknowledgement was lost and the broker delivered it again', async () => {
    const orders = [];
    for (const [item, amount] of [
      ['keyboard', 49.9],
      ['monitor', 189],
    ] as const) {
      const placed = await example.post('/orders', { item, amount });
      expect(placed.status).toBe(201);
      orders.push(placed.body as { orderId: string; messageId: string });
    }
    const lostAcknowledgements = example.app.get(LostAcknowledgements);
    // Each first delivery charged and committed, then "lost" its acknowledgement: NACKed, so delivered again.
    await waitFor(() => lostAcknowledgements.lost === 2, {
      deadlineMs: 30_000,
      message: () => `both first acknowledgements to be lost, ${lostAcknowledgements.lost} so far`,
    });
    // Lag 0 only once the second deliveries were acknowledged: the inbox found the duplicates.
    await broker.caughtUp(BILLING_CONSUMER_ID, ORDER_PLACED);

    const subscription = await broker.subscription(BILLING_CONSUMER_ID, ORDER_PLACED);
    expect(subscription.stats.redelivered).toBeGreaterThanOrEqual(2);
    for (const { orderId, messageId } of orders) {
      // One charge, made by the first delivery; the second delivery ran no handler.
      expect(await schema.rows('charges', 'order_id = $1', [orderId])).toEqual([
        expect.objectContaining({ order_id: orderId, message_id: messageId, delivery_count: 1 }),
      ]);
      expect(await schema.rows('mmmq_inbox', 'message_id = $1', [messageId])).toHaveLength(1);
    }
    expect(lostAcknowledgements.lost).toBe(2);
    expect(await broker.deadLetters(BILLING_CONSUMER_ID)).toEqual([]);
  });
});
