import { BrokerRequestError } from '../../src';
import { PullClient } from '../../src/pull/pull-client';
import { FakePullBroker } from '../support/fake-pull-broker';

describe('PullClient', () => {
  let broker: FakePullBroker;
  let client: PullClient;
  beforeEach(async () => {
    broker = await new FakePullBroker().start();
    client = new PullClient(broker.url, 2_000, { token: 'consume-token-123' });
  });
  afterEach(async () => {
    client.close();
    await broker.close();
  });

  it('fetches leased messages and settles them by lease', async () => {
    broker.publish('c.1', 'order.created', [{ n: 1 }, { n: 2 }]);
    const messages = await client.fetch('c.1', { max: 10, waitMs: 0, member: 'm:1', autoAck: false, ackTimeoutMs: 5000 });
    expect(messages).toEqual([
      expect.objectContaining({
        id: 'order.created-0',
        content: { n: 1 },
        deliveryCount: 1,
        redelivered: false,
        lease: 'order.created:0:1',
      }),
      expect.objectContaining({ id: 'order.created-1', content: { n: 2 }, lease: 'order.created:1:1' }),
    ]);
    expect(broker.callsTo('fetch')[0].body).toEqual({ max: 10, waitMs: 0, member: 'm:1', autoAck: false, ackTimeoutMs: 5000 });
    expect(await client.ack('c.1', ['order.created:0:1', 'gone:9:1'])).toEqual({ settled: 1, lost: ['gone:9:1'] });
    expect(await client.nack('c.1', ['order.created:1:1'], 250)).toEqual({ settled: 1, lost: [] });
    expect(broker.callsTo('nack')[0].body).toEqual({ leases: ['order.created:1:1'], delayMs: 250 });
  });

  it('long-polls: an empty answer comes after waitMs, a message as soon as it is there', async () => {
    const started = Date.now();
    expect(await client.fetch('c.2', { max: 1, waitMs: 300, member: 'm:1', autoAck: false })).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    const waiting = client.fetch('c.2', { max: 1, waitMs: 10_000, member: 'm:1', autoAck: false });
    setTimeout(() => broker.publish('c.2', 't', [{ n: 1 }]), 50);
    expect(await waiting).toHaveLength(1);
  });

  it('ends a long poll when its signal aborts', async () => {
    const abort = new AbortController();
    const waiting = client.fetch('c.3', { max: 1, waitMs: 10_000, member: 'm:1', autoAck: false }, abort.signal);
    setTimeout(() => abort.abort(), 50);
    await expect(waiting).rejects.toBeInstanceOf(BrokerRequestError);
  });

  it('says whether retrying can help, and names the request', async () => {
    broker.failures = [{ status: 503 }, { status: 404 }];
    await expect(client.ack('c.4', ['x'])).rejects.toMatchObject({
      retriable: true,
      message: expect.stringContaining('POST /mmmq/consumers/c.4/ack'),
    });
    await expect(client.ack('c.4', ['x'])).rejects.toMatchObject({ retriable: false, message: expect.stringContaining('HTTP 404') });
    const unreachable = new PullClient('http://127.0.0.1:1', 500);
    await expect(unreachable.recover('c.4', 'm:1')).rejects.toMatchObject({ retriable: true });
    unreachable.close();
  });

  it('sends the token as a bearer token, extends leases and recovers a member', async () => {
    broker.publish('c.5', 't', [{ n: 1 }]);
    const [message] = await client.fetch('c.5', { max: 1, waitMs: 0, member: 'm:5', autoAck: false });
    expect(await client.extend('c.5', [message.lease!])).toEqual({ extended: 1, lost: [] });
    expect(await client.recover('c.5', 'm:5')).toBe(1);
    expect(await client.terminate('c.5', ['t:0:1'], 'poison')).toEqual({ settled: 0, lost: ['t:0:1'] });
    expect(broker.callsTo('terminate')[0].body).toEqual({ leases: ['t:0:1'], reason: 'poison' });
    expect(broker.calls.every(({ authorization }) => authorization === 'Bearer consume-token-123')).toBe(true);
  });
});
