import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { TestConsumer } from '../support/test-consumer';
import { FAST_BACKOFF } from './delivery.fixture';

const MESSAGES = 20;

describe('two push hosts of one consumer id and a trickle of messages', () => {
  let broker: BrokerApp;
  const hosts = [new TestConsumer(), new TestConsumer()];

  afterAll(async () => {
    await broker?.close();
    for (const host of hosts) await host.stop();
  });

  it('share them in turn: each message is leased while both hosts are idle, and not always by the first', async () => {
    for (const host of hosts) await host.start();
    broker = await startBroker({ delivery: FAST_BACKOFF });
    expect(
      (await broker.request('POST', '/mmmq/dispatchers', { consumerId: 'work', hosts: hosts.map((host) => host.url), pattern: 'job.*' }))
        .status,
    ).toBe(201);

    for (let n = 0; n < MESSAGES; n++) {
      await broker.publish('job.queued', { n });
      // Settled before the next one: the next finds both hosts idle, so which one gets it is the broker's choice.
      await broker.caughtUp('work', 'job.queued');
    }

    const shares = hosts.map((host) => host.received.length);
    expect(shares[0] + shares[1]).toBe(MESSAGES);
    // In turn, each host wakes first every other time; a host may still miss its turn while busy with a reply.
    expect(Math.min(...shares)).toBeGreaterThanOrEqual(MESSAGES / 4);
  });
});
