import { BrokerApp, startBroker } from './broker-app.fixture';

describe('POST /mmmq/messages/batch commits all its messages together', () => {
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker();
  });

  afterAll(() => broker.close());

  it('acknowledges every message with its own consecutive offset, in request order', async () => {
    await broker.post('/mmmq/messages', '{"topic":"orders","content":0}');
    const response = await broker.post(
      '/mmmq/messages/batch',
      JSON.stringify({
        messages: [
          { topic: 'orders', content: 1, id: 'a' },
          { topic: { name: 'orders' }, content: { n: 2 } },
          { topic: 'orders', content: [3], id: 'c' },
        ],
      }),
    );
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      acknowledgement: 'ACK',
      messages: [
        { id: 'a', topic: 'orders', offset: 1, deliveryMode: 'persistent' },
        { id: expect.any(String), topic: 'orders', offset: 2, deliveryMode: 'persistent' },
        { id: 'c', topic: 'orders', offset: 3, deliveryMode: 'persistent' },
      ],
    });
    expect(broker.topics.get('orders')?.tailOffset).toBe(4);
  });

  it('commits a batch spanning topics atomically: each topic at consecutive offsets, in request order', async () => {
    const response = await broker.post(
      '/mmmq/messages/batch',
      '{"messages":[{"topic":"orders","id":"o","content":1},{"topic":"invoices","id":"i","content":2}]}',
    );
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      acknowledgement: 'ACK',
      messages: [
        { id: 'o', topic: 'orders', offset: 4, deliveryMode: 'persistent' },
        { id: 'i', topic: 'invoices', offset: 0, deliveryMode: 'persistent' },
      ],
    });
    expect(broker.topics.get('orders')?.tailOffset).toBe(5);
    expect(broker.topics.get('invoices')?.tailOffset).toBe(1);
  });

  it('refuses the whole batch when one message is invalid, saying which', async () => {
    const response = await broker.post('/mmmq/messages/batch', '{"messages":[{"topic":"orders","content":1},{"topic":"orders"}]}');
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/^messages\[1\]: .*"content"/);
    expect(broker.topics.get('orders')?.tailOffset).toBe(5);
  });
});
