import { TestConsumer, waitFor } from '@mmmq/test-support';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { FAST_BACKOFF, range } from './delivery.fixture';

describe('an exclusive consumer with two push hosts', () => {
  let broker: BrokerApp;
  const active = new TestConsumer();
  const backup = new TestConsumer();

  beforeAll(async () => {
    await active.start();
    await backup.start();
    broker = await startBroker({ delivery: FAST_BACKOFF });
  });
  afterAll(async () => {
    await broker.close();
    await backup.stop();
  });

  it('pushes the backlog to the backup host once the active host has been dead for a lease period, with no new publish', async () => {
    const topic = 'failover.orders';
    await broker.addDispatcher('failover', active.url, topic, { exclusive: true, ackTimeoutMs: 1000 });
    const joined = await broker.request('POST', '/mmmq/dispatchers', {
      consumerId: 'failover',
      host: backup.url,
      pattern: topic,
      exclusive: true,
      ackTimeoutMs: 1000,
    });
    expect(joined.status).toBe(200);
    await broker.publishAll(topic, ['first']);
    await active.waitFor(() => active.received.length === 1, { message: 'the first message, pushed to the active host' });

    await active.stop();
    // The whole backlog arrives while the active host is down; nothing is published after it.
    await broker.publishAll(
      topic,
      range(30).map((n) => ({ n })),
    );
    await waitFor(async () => (await broker.subscription('failover', topic))?.activeMember === backup.url, {
      message: 'the backup host to become the active member',
    });
    await backup.waitFor(() => backup.received.length >= 30, {
      deadlineMs: 20_000,
      message: 'the backlog of 30, pushed to the backup host after the takeover (no publish wakes it)',
    });
    expect(backup.contents()).toEqual(range(30).map((n) => ({ n })));
    await broker.caughtUp('failover', topic);
  }, 60_000);
});
