import { TestConsumer, waitFor } from '@mmmq/test-support';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { PullClient } from '../delivery/pull.fixture';

/** Published in this order (offsets 0–5); `p` is the priority, absent: the default 4. */
const MIXED = [
  { content: 'low-1', priority: 1 },
  { content: 'default-a' },
  { content: 'high-9', priority: 9 },
  { content: 'mid-6', priority: 6 },
  { content: 'default-b', priority: 4 },
  { content: 'high-9-b', priority: 9 },
];
const BY_PRIORITY = ['high-9', 'high-9-b', 'mid-6', 'default-a', 'default-b', 'low-1'];
const BY_OFFSET = MIXED.map((message) => message.content);

/** Publishes all in one batch: stored together, so a subscription sees them all at once. */
async function publishBatch(broker: BrokerApp, topic: string, messages: Array<Record<string, unknown>>): Promise<void> {
  const response = await broker.request('POST', '/mmmq/messages/batch', { messages: messages.map((message) => ({ topic, ...message })) });
  if (response.status !== 200) throw new Error(`publish failed: ${response.status} ${JSON.stringify(response.body)}`);
}

describe('message priority', () => {
  let broker: BrokerApp;
  const consumer = new TestConsumer();
  const pushed = (consumerId: string) =>
    consumer.received.filter((push) => push.consumerId === consumerId).map((push) => push.body.content);

  beforeAll(async () => {
    await consumer.start();
    broker = await startBroker();
  });
  afterAll(async () => {
    await broker.close();
    await consumer.stop();
  });

  it('lets a fetch have higher priorities first, FIFO within a priority; the body names a priority other than 4', async () => {
    await publishBatch(broker, 'prio.pull', MIXED);
    const puller = new PullClient(broker, 'prio-pull');
    await puller.register({ pattern: 'prio.pull' });
    await waitFor(async () => (await broker.subscription('prio-pull', 'prio.pull')) !== undefined, { message: 'the subscription' });
    const fetched = await puller.fetch({ max: 10 });
    expect(fetched.map((message) => message.content)).toEqual(BY_PRIORITY);
    expect(fetched.map((message) => message.priority)).toEqual([9, 9, 6, undefined, undefined, 1]);
  });

  it('pushes higher priorities first to a push consumer, one at a time', async () => {
    await publishBatch(broker, 'prio.push', MIXED);
    await broker.addDispatcher('prio-push', consumer.url, 'prio.push');
    await broker.caughtUp('prio-push', 'prio.push');
    expect(pushed('prio-push')).toEqual(BY_PRIORITY);
  });

  it('ignores priority for an exclusive (strictly ordered) dispatcher: offset order', async () => {
    await publishBatch(broker, 'prio.exclusive', MIXED);
    await broker.addDispatcher('prio-exclusive', consumer.url, 'prio.exclusive', { exclusive: true });
    await broker.caughtUp('prio-exclusive', 'prio.exclusive');
    expect(pushed('prio-exclusive')).toEqual(BY_OFFSET);
  });

  it('keeps messages of one ordering key in offset order whatever their priority; other messages pass by priority', async () => {
    const key = (k: string) => ({ 'mmmq-ordering-key': k });
    await publishBatch(broker, 'prio.keys', [
      { content: 'k-1', priority: 0, headers: key('k') },
      { content: 'k-2', priority: 9, headers: key('k') },
      { content: 'free', priority: 5 },
    ]);
    await broker.addDispatcher('prio-keys', consumer.url, 'prio.keys');
    await broker.caughtUp('prio-keys', 'prio.keys');
    expect(pushed('prio-keys')).toEqual(['free', 'k-1', 'k-2']);
  });

  it.each([10, -1, 2.5, '9'])('refuses priority %j with 400 naming the field, storing nothing', async (priority) => {
    const response = await broker.request('POST', '/mmmq/messages', { topic: 'prio.bad', content: 1, priority });
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/"priority" must be an integer from 0 to 9/);
    expect(await broker.stored('prio.bad')).toEqual([]);
  });
});
