import { BrokerApp, startBroker } from './broker-app.fixture';

describe('POST /mmmq/messages/batch commits all messages of one topic together', () => {
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
        { id: 'a', topic: 'orders', offset: 1 },
        { id: expect.any(String), topic: 'orders', offset: 2 },
        { id: 'c', topic: 'orders', offset: 3 },
      ],
    });
    expect(broker.topics.get('orders')?.tailOffset).toBe(4);
  });

  it('refuses a batch spanning topics, naming them, and writes none of it', async () => {
    const response = await broker.post(
      '/mmmq/messages/batch',
      '{"messages":[{"topic":"orders","content":1},{"topic":"invoices","content":2}]}',
    );
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      acknowledgement: 'NACK',
      message: expect.stringMatching(/one topic.*orders.*messages\[1\].*invoices/),
    });
    expect(broker.topics.get('orders')?.tailOffset).toBe(4);
    expect(broker.topics.get('invoices')).toBeUndefined();
  });

  it('refuses the whole batch when one message is invalid, saying which', async () => {
    const response = await broker.post(
      '/mmmq/messages/batch',
      '{"messages":[{"topic":"orders","content":1},{"topic":"orders"}]}',
    );
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/^messages\[1\]: .*"content"/);
    expect(broker.topics.get('orders')?.tailOffset).toBe(4);
  });
});
