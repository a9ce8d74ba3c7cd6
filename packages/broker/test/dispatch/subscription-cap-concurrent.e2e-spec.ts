import { BrokerApp, startBroker } from '../http/broker-app.fixture';

/** The broker's subscriptions (topic × consumer id), attached or still attaching. */
async function subscriptionCount(broker: BrokerApp): Promise<number> {
  const { body } = await broker.request('GET', '/mmmq/subscriptions');
  return (Array.isArray(body) ? body : body.subscriptions).length;
}

const statuses = (responses: ReadonlyArray<{ status: number }>) => responses.map((response) => response.status).sort();

describe('limits.maxSubscriptions under concurrent creation', () => {
  let broker: BrokerApp | undefined;

  afterEach(async () => {
    await broker?.close();
    broker = undefined;
  });

  it('creates only the topics whose subscriptions fit when publishes create them at once', async () => {
    broker = await startBroker({ limits: { maxSubscriptions: 3 } });
    expect((await broker.request('POST', '/mmmq/dispatchers', { consumerId: 'all', pattern: '**' })).status).toBe(201);
    // Six new topics in the same turn, each adding one subscription: three fit.
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, n) => broker!.request('POST', '/mmmq/messages', { topic: `c${n}`, content: n })),
    );
    expect(statuses(responses)).toEqual([200, 200, 200, 429, 429, 429]);
    for (const refused of responses.filter((response) => response.status === 429))
      expect(refused.body.message).toContain('limits.maxSubscriptions (3)');
    expect(await subscriptionCount(broker)).toBe(3);
  });

  it('lets only one of a dispatcher and a new topic that each fit alone take the last subscriptions', async () => {
    broker = await startBroker({ limits: { maxSubscriptions: 5 } });
    for (const topic of ['t1', 't2']) await broker.publish(topic, topic);
    expect((await broker.request('POST', '/mmmq/dispatchers', { consumerId: 'all', pattern: '**' })).status).toBe(201);
    // 2 subscriptions; the dispatcher adds 2 (3 with t3), the topic 1 (2 with the dispatcher): not both.
    const [dispatcher, publish] = await Promise.all([
      broker.request('POST', '/mmmq/dispatchers', { consumerId: 'second', pattern: '**' }),
      broker.request('POST', '/mmmq/messages', { topic: 't3', content: 3 }),
    ]);
    expect([dispatcher.status, publish.status].filter((status) => status === 429)).toHaveLength(1);
    expect(await subscriptionCount(broker)).toBeLessThanOrEqual(5);
  });

  it('registers only the dispatchers that fit when they are registered at once', async () => {
    broker = await startBroker({ limits: { maxSubscriptions: 5 } });
    for (const topic of ['t1', 't2']) await broker.publish(topic, topic);
    const responses = await Promise.all(
      ['a', 'b', 'c', 'd'].map((consumerId) => broker!.request('POST', '/mmmq/dispatchers', { consumerId, pattern: '**' })),
    );
    // Two subscriptions each: two dispatchers fit.
    expect(statuses(responses)).toEqual([201, 201, 429, 429]);
    expect(await subscriptionCount(broker)).toBe(4);
  });
});
