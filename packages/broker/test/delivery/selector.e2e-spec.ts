import { makeTempDir, removeTempDir, TestConsumer, waitFor } from '@mmmq/test-support';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { PullClient } from './pull.fixture';

/** A message and the headers a selector looks at. */
type Sent = [content: string, headers: Record<string, string | number | boolean>];

const SELECTOR = "region = 'EU' AND amount > 100";
/** What {@link SELECTOR} selects, and what it skips: other values, a missing header, no headers at all. */
const MIXED: Sent[] = [
  ['eu-150', { region: 'EU', amount: 150 }],
  ['eu-50', { region: 'EU', amount: 50 }],
  ['us-500', { region: 'US', amount: 500 }],
  ['eu-no-amount', { region: 'EU' }],
  ['no-headers', {}],
  ['eu-200', { region: 'EU', amount: 200 }],
];

async function publish(broker: BrokerApp, topic: string, messages: Sent[]): Promise<void> {
  for (const [content, headers] of messages) {
    const response = await broker.request('POST', '/mmmq/messages', { topic, content, headers });
    if (response.status !== 200) throw new Error(`publish failed: ${response.status} ${JSON.stringify(response.body)}`);
  }
}

/** A new topic's subscriptions start right after its first publish is acknowledged. */
const subscribed = (broker: BrokerApp, consumerId: string, topic: string) =>
  waitFor(async () => (await broker.subscription(consumerId, topic)) !== undefined, {
    message: `${consumerId}'s subscription to ${topic}`,
  });

describe('a dispatcher with a selector', () => {
  let broker: BrokerApp;
  let consumer: TestConsumer;

  beforeAll(async () => {
    broker = await startBroker();
    consumer = new TestConsumer();
    await consumer.start();
  });
  afterAll(async () => {
    await consumer.stop();
    await broker.close();
  });
  beforeEach(() => {
    consumer.received.length = 0;
  });

  const pushed = (consumerId: string) =>
    consumer.received.filter((push) => push.consumerId === consumerId).map((push) => push.body.content);

  it('pushes only matching messages, in order; the skipped ones count as filtered and the lag reaches 0', async () => {
    await broker.addDispatcher('push-eu', consumer.url, 'sel.push', { selector: SELECTOR });
    await publish(broker, 'sel.push', MIXED);
    await broker.caughtUp('push-eu', 'sel.push');
    expect(pushed('push-eu')).toEqual(['eu-150', 'eu-200']);
    const { position, lag, stats } = await broker.subscription('push-eu', 'sel.push');
    expect({ position, lag, delivered: stats.delivered, filtered: stats.filtered }).toEqual({
      position: 6,
      lag: 0,
      delivered: 2,
      filtered: 4,
    });
  });

  it('lets a fetch take only matching messages; after the ack the lag is 0 and the others count as filtered', async () => {
    const puller = new PullClient(broker, 'pull-eu');
    await puller.register({ pattern: 'sel.pull', selector: SELECTOR });
    await publish(broker, 'sel.pull', MIXED);
    await subscribed(broker, 'pull-eu', 'sel.pull');
    const fetched = await puller.fetch({ max: 10 });
    expect(fetched.map((message) => [message.content, message.offset])).toEqual([
      ['eu-150', 0],
      ['eu-200', 5],
    ]);
    await puller.ack(fetched.map((message) => message.lease));
    expect(await puller.fetch()).toEqual([]);
    const { lag, stats } = await broker.subscription('pull-eu', 'sel.pull');
    expect({ lag, filtered: stats.filtered, delivered: stats.delivered }).toEqual({ lag: 0, filtered: 4, delivered: 2 });
  });

  it('is shown by GET; a dispatcher without one shows none and receives every message', async () => {
    await broker.addDispatcher('all', consumer.url, 'sel.get');
    await broker.addDispatcher('some', consumer.url, 'sel.get', { selector: "region IN ('EU', 'UK')" });
    expect((await broker.request('GET', '/mmmq/dispatchers/some')).body.selector).toBe("region IN ('EU', 'UK')");
    expect((await broker.request('GET', '/mmmq/dispatchers/all')).body).not.toHaveProperty('selector');
    await publish(broker, 'sel.get', [
      ['uk', { region: 'UK' }],
      ['us', { region: 'US' }],
    ]);
    await broker.caughtUp('all', 'sel.get');
    await broker.caughtUp('some', 'sel.get');
    expect(pushed('all')).toEqual(['uk', 'us']);
    expect(pushed('some')).toEqual(['uk']);
    expect((await broker.subscription('all', 'sel.get')).stats.filtered).toBe(0);
  });

  it('refuses an invalid selector with 400 naming the field and the position, and creates nothing', async () => {
    const created = await broker.request('POST', '/mmmq/dispatchers', {
      consumerId: 'bad',
      host: consumer.url,
      pattern: 'sel.bad',
      selector: "region = = 'EU'",
    });
    expect(created.status).toBe(400);
    expect(created.body.message).toBe('dispatcher: selector is invalid at position 10: expected a value after "=", found "="');
    expect((await broker.request('GET', '/mmmq/dispatchers/bad')).status).toBe(404);
    const notText = await broker.request('POST', '/mmmq/dispatchers', { consumerId: 'bad', pattern: 'sel.bad', selector: 5 });
    expect(notText.status).toBe(400);
    expect(notText.body.message).toMatch(/selector must be a string, got 5/);
    expect((await broker.request('GET', '/mmmq/dispatchers/bad')).status).toBe(404);
  });

  it('is changed by PUT for the messages not delivered yet; an invalid one changes nothing', async () => {
    await broker.addDispatcher('moving', consumer.url, 'sel.put', { selector: "region = 'EU'" });
    await publish(broker, 'sel.put', [
      ['eu-1', { region: 'EU' }],
      ['us-1', { region: 'US' }],
    ]);
    await broker.caughtUp('moving', 'sel.put');

    const refused = await broker.request('PUT', '/mmmq/dispatchers/moving', {
      host: consumer.url,
      pattern: 'sel.put',
      selector: 'region =',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/selector is invalid at position \d+: /);
    expect((await broker.request('GET', '/mmmq/dispatchers/moving')).body.selector).toBe("region = 'EU'");

    const changed = await broker.request('PUT', '/mmmq/dispatchers/moving', {
      host: consumer.url,
      pattern: 'sel.put',
      selector: "region = 'US'",
    });
    expect(changed.status).toBe(200);
    expect(changed.body.selector).toBe("region = 'US'");
    await publish(broker, 'sel.put', [
      ['eu-2', { region: 'EU' }],
      ['us-2', { region: 'US' }],
    ]);
    await broker.caughtUp('moving', 'sel.put');
    expect(pushed('moving')).toEqual(['eu-1', 'us-2']);
  });

  it('does not apply to a redrive: dead letters handed back are delivered whatever the selector is now', async () => {
    let healed = false;
    consumer.reply = (push) => (push.consumerId === 'redriven' && !healed ? 'REJECT' : 'ACK');
    try {
      await broker.addDispatcher('redriven', consumer.url, 'sel.redrive', { selector: "region = 'EU'" });
      await publish(broker, 'sel.redrive', [['eu-1', { region: 'EU' }]]);
      await waitFor(async () => (await broker.request('GET', '/mmmq/dead-letters/redriven')).body.total === 1, {
        message: 'the rejected message to be dead-lettered',
      });
      const put = await broker.request('PUT', '/mmmq/dispatchers/redriven', {
        host: consumer.url,
        pattern: 'sel.redrive',
        selector: "region = 'US'",
      });
      expect(put.status).toBe(200);
      healed = true;
      expect((await broker.request('POST', '/mmmq/dead-letters/redriven/redrive', {})).body).toEqual({ redriven: 1 });
      await broker.caughtUp('redriven', '__redrive.redriven');
      expect(pushed('redriven')).toEqual(['eu-1', 'eu-1']);
      expect((await broker.subscription('redriven', '__redrive.redriven')).stats.filtered).toBe(0);
    } finally {
      consumer.reply = () => 'ACK';
    }
  });
});

describe('a selector after a broker restart', () => {
  let rootDir: string;
  beforeAll(async () => {
    rootDir = await makeTempDir('mmmq-selector-');
  });
  afterAll(() => removeTempDir(rootDir));

  it('is kept with its dispatcher, and the messages it skipped stay skipped', async () => {
    const first = await startBroker({ persistence: { rootDir } });
    try {
      await new PullClient(first, 'kept').register({ pattern: 'sel.restart', selector: "region = 'EU'" });
      await publish(first, 'sel.restart', [['us-1', { region: 'US' }]]);
      await subscribed(first, 'kept', 'sel.restart');
      // A fetch reads the topic: the one message is skipped and the cursor passes it.
      expect(await new PullClient(first, 'kept').fetch()).toEqual([]);
      await waitFor(async () => (await first.subscription('kept', 'sel.restart'))?.lag === 0, { message: 'the skip to pass the cursor' });
    } finally {
      await first.close();
    }

    const second = await startBroker({ persistence: { rootDir } });
    try {
      expect((await second.request('GET', '/mmmq/dispatchers/kept')).body.selector).toBe("region = 'EU'");
      await subscribed(second, 'kept', 'sel.restart');
      expect((await second.subscription('kept', 'sel.restart')).position).toBe(1);
      await publish(second, 'sel.restart', [
        ['us-2', { region: 'US' }],
        ['eu-2', { region: 'EU' }],
      ]);
      const puller = new PullClient(second, 'kept');
      const fetched = await puller.fetch({ max: 10 });
      expect(fetched.map((message) => message.content)).toEqual(['eu-2']);
      await puller.ack(fetched.map((message) => message.lease));
      const { lag, stats } = await second.subscription('kept', 'sel.restart');
      expect({ lag, filtered: stats.filtered }).toEqual({ lag: 0, filtered: 1 });
    } finally {
      await second.close();
    }
  });
});
