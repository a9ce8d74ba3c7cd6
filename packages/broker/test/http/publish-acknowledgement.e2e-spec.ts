import { decodeEnvelope } from '../../src/format/message-envelope';
import { BrokerApp, startBroker } from './broker-app.fixture';

describe('POST /mmmq/messages acknowledges a durable message with its id, topic and offset', () => {
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker();
  });

  afterAll(() => broker.close());

  it('assigns an id when the producer gives none', async () => {
    const response = await broker.post('/mmmq/messages', '{"topic":"order.created","content":{"id":1}}');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.body).toEqual({
      acknowledgement: 'ACK',
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      topic: 'order.created',
      offset: 0,
      deliveryMode: 'persistent',
    });
  });

  it("echoes the producer's id, accepts the Java producer's topic object, and counts offsets up", async () => {
    const response = await broker.post(
      '/mmmq/messages',
      '{"topic":{"name":"order.created"},"content":[2],"id":"order-2","headers":{"priority":5,"vip":true}}',
    );
    expect(response.body).toEqual({ acknowledgement: 'ACK', id: 'order-2', topic: 'order.created', offset: 1, deliveryMode: 'persistent' });
  });

  it('has stored what it acknowledged, with the time it was accepted', async () => {
    const before = Date.now();
    const { body } = await broker.post('/mmmq/messages', '{"topic":"audit","content":"x","headers":{"h":"v"}}');
    const queue = broker.topics.get('audit');
    const stored = decodeEnvelope((await queue?.peek(body.offset as number)) ?? Buffer.alloc(0));
    expect(stored).toMatchObject({ id: body.id, topic: 'audit', headers: { h: 'v' } });
    expect(stored.content.toString()).toBe('"x"');
    expect(stored.publishedAt).toBeGreaterThanOrEqual(before);
    expect(stored.publishedAt).toBeLessThanOrEqual(Date.now());
  });
});
