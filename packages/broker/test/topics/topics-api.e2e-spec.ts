import { BrokerApp, range, startBroker } from '@mmmq/test-support';
import { MAX_BROWSE_PAGE_SIZE } from '../../src/topics/topic-browser';

describe('GET /mmmq/topics: the topics and their messages by offset, read-only', () => {
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker();
    await broker.publishAll(
      'order.created',
      range(5).map((n) => ({ n })),
    );
    await broker.request('POST', '/mmmq/messages', {
      topic: 'audit',
      id: 'a-1',
      headers: { region: 'EU' },
      priority: 7,
      ttlMs: 3_600_000,
      content: { who: 'alice' },
    });
  });
  afterAll(() => broker.close());

  it('lists every topic with its offsets and size, by name', async () => {
    const { status, body } = await broker.request('GET', '/mmmq/topics');
    expect(status).toBe(200);
    expect(body.topics.map((topic: { name: string }) => topic.name)).toEqual(['audit', 'order.created']);
    expect(body.topics[1]).toMatchObject({ name: 'order.created', reserved: false, startOffset: 0, tailOffset: 5, messages: 5 });
    expect(body.topics[1].bytes).toBeGreaterThan(0);
  });

  it('shows one topic, and answers 404 for one that does not exist and 400 for an invalid name', async () => {
    expect((await broker.request('GET', '/mmmq/topics/audit')).body).toMatchObject({ name: 'audit', tailOffset: 1 });
    const missing = await broker.request('GET', '/mmmq/topics/nothing.here');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ acknowledgement: 'NACK', message: "No topic 'nothing.here'" });
    expect((await broker.request('GET', '/mmmq/topics/a..b')).status).toBe(400);
  });

  it('pages through messages from an offset with their id, headers, priority, expiry and content', async () => {
    const first = await broker.request('GET', '/mmmq/topics/order.created/messages?from=1&limit=2');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ nextFrom: 3, startOffset: 0, tailOffset: 5, corrupt: [] });
    expect(first.body.messages.map((message: { offset: number; content: unknown }) => [message.offset, message.content])).toEqual([
      [1, { n: 1 }],
      [2, { n: 2 }],
    ]);
    const rest = await broker.request('GET', '/mmmq/topics/order.created/messages?from=3');
    expect(rest.body.messages.map((message: { offset: number }) => message.offset)).toEqual([3, 4]);
    expect(rest.body.nextFrom).toBe(5);

    const [audit] = (await broker.request('GET', '/mmmq/topics/audit/messages')).body.messages;
    expect(audit).toMatchObject({
      offset: 0,
      id: 'a-1',
      topic: 'audit',
      headers: { region: 'EU' },
      priority: 7,
      content: { who: 'alice' },
    });
    expect(audit.expiresAt - audit.publishedAt).toBe(3_600_000);
  });

  it('changes nothing by reading: no subscription appears', async () => {
    await broker.request('GET', '/mmmq/topics/order.created/messages');
    expect((await broker.request('GET', '/mmmq/subscriptions')).body).toEqual([]);
  });

  it.each([['from=-1'], ['from=x'], ['limit=0'], [`limit=${MAX_BROWSE_PAGE_SIZE + 1}`]])(
    'refuses %s with 400 naming the parameter',
    async (query) => {
      const { status, body } = await broker.request('GET', `/mmmq/topics/order.created/messages?${query}`);
      expect(status).toBe(400);
      expect(body.message).toContain(query.split('=')[0]);
    },
  );
});
