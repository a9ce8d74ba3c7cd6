import { MmmqConsumerHealthIndicator } from '@mmmq/consumer';
import { OUTBOX_HEADERS } from '@mmmq/core';
import { BrokerApp, FAST_BACKOFF, startBroker, waitFor } from '@mmmq/test-support';
import { BILLING_CONSUMER_ID } from '../src/billing/billing.listener';
import { MAX_ORDER_AMOUNT } from '../src/orders/orders.service';
import { ORDER_PLACED } from '../src/orders/order-placed';
import { RunningExample, startExample, TEST_DATABASE_URL, testSchema, TestSchema } from './exactly-once-app.fixture';

interface ChargeRow {
  order_id: string;
  amount: string;
  message_id: string;
  delivery_count: number;
}

describe('the exactly-once example: order + outbox in one transaction → relay → broker → billing with inbox', () => {
  let schema: TestSchema;
  let broker: BrokerApp;
  let example: RunningExample;
  const chargesOf = (orderId: string) => schema.rows<ChargeRow>('charges', 'order_id = $1', [orderId]);

  beforeAll(async () => {
    schema = testSchema();
    broker = await startBroker({ delivery: FAST_BACKOFF });
    example = await startExample({ broker: broker.url, databaseUrl: TEST_DATABASE_URL, schema: schema.name, loseFirstAck: false });
    const health = example.app.get(MmmqConsumerHealthIndicator);
    await waitFor(() => health.check().status === 'up', { message: "billing's dispatcher to be registered" });
  });
  afterAll(async () => {
    await example?.app.close();
    await broker?.close();
    await schema?.drop();
  });

  /** Places an order and waits until billing has charged it and acknowledged its message. */
  async function placeAndSettle(item: string, amount: number): Promise<{ orderId: string; messageId: string }> {
    const placed = await example.post('/orders', { item, amount });
    expect(placed.status).toBe(201);
    await waitFor(async () => (await chargesOf(placed.body.orderId)).length > 0, { deadlineMs: 30_000, message: `a charge for ${item}` });
    await broker.caughtUp(BILLING_CONSUMER_ID, ORDER_PLACED);
    return placed.body;
  }

  it('publishes the order’s event through the relay and charges it once', async () => {
    const { orderId, messageId } = await placeAndSettle('keyboard', 49.9);

    expect(await chargesOf(orderId)).toEqual([
      expect.objectContaining({ order_id: orderId, amount: '49.90', message_id: messageId, delivery_count: 1 }),
    ]);
    await waitFor(async () => (await example.get(`/orders/${orderId}`)).body.event?.status === 'PUBLISHED', {
      message: 'the outbox row to be marked PUBLISHED',
    });
    const view = (await example.get(`/orders/${orderId}`)).body;
    expect(view.order).toMatchObject({ id: orderId, item: 'keyboard', amount: 49.9 });
    expect(view.event).toMatchObject({ messageId, status: 'PUBLISHED' });
    // The relay published the row as the message: its message_id as the id, the reserved outbox headers.
    const stored = (await broker.stored(ORDER_PLACED)).filter((message) => message.id === messageId);
    expect(stored).toHaveLength(1);
    expect(stored[0].headers).toMatchObject({
      [OUTBOX_HEADERS.messageId]: messageId,
      [OUTBOX_HEADERS.aggregateType]: 'order',
      [OUTBOX_HEADERS.aggregateId]: orderId,
    });
    expect(JSON.parse(stored[0].content)).toEqual({ orderId, item: 'keyboard', amount: 49.9 });
    expect(await schema.rows('mmmq_inbox', 'message_id = $1', [messageId])).toEqual([
      expect.objectContaining({ message_id: messageId, consumer_id: BILLING_CONSUMER_ID }),
    ]);
    expect((await example.get('/charges')).body).toEqual(
      expect.arrayContaining([expect.objectContaining({ orderId, amount: 49.9, messageId, deliveryCount: 1 })]),
    );
  });

  it('rolls the order and its event back together when the transaction fails after both writes: nothing is published or charged', async () => {
    const item = `yacht-${Date.now()}`;
    const refused = await example.post('/orders', { item, amount: MAX_ORDER_AMOUNT + 1 });
    expect(refused.status).toBe(422);
    expect(await schema.rows('orders', 'item = $1', [item])).toEqual([]);
    expect(await schema.rows('mmmq_outbox', 'content LIKE $1', [`%${item}%`])).toEqual([]);

    // An order placed after it is relayed and charged: had the refused one's event been committed, it would be too.
    await placeAndSettle('monitor', 189);
    expect((await broker.stored(ORDER_PLACED)).filter((message) => message.content.includes(item))).toEqual([]);
    expect(await schema.rows('charges', `order_id NOT IN (SELECT id FROM "${schema.name}".orders)`)).toEqual([]);
  });

  it('refuses an invalid order with 400 before any transaction starts', async () => {
    const ordersBefore = (await schema.rows('orders')).length;
    const invalid = await example.post('/orders', { item: '', amount: -5 });
    expect(invalid.status).toBe(400);
    expect(invalid.body.message).toEqual(expect.arrayContaining(['item should not be empty', 'amount must be a positive number']));
    expect(await schema.rows('orders')).toHaveLength(ordersBefore);
  });
});
