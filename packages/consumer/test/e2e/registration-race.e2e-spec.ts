import { Injectable } from '@nestjs/common';
import { freePort, waitFor } from '@mmmq/test-support';
import { MMMQListener } from '../../src';
import { DispatcherApiClient } from '../../src/registration/dispatcher-api.client';
import { BrokerApp, startBroker } from '../support/broker-app';
import type { ConsumerApp } from '../support/consumer-app';
import { startRegisteredConsumer } from '../support/registered-consumer';

const CONSUMER_ID = 'billing.invoice-listener.on-order';
/** What both replicas' listeners received, in arrival order. */
const handled: unknown[] = [];

@Injectable()
class InvoiceListener {
  @MMMQListener('order.*')
  onOrder(content: unknown): void {
    handled.push(content);
  }
}

/**
 * Two replicas of one service register the same consumer id with different settings at the same moment: the one
 * that read "absent" before the other created it gets 409 on its POST. The documented outcome (docs/consumer.md,
 * "Self-registration"): the registrar retries, finds the dispatcher with other settings and replaces them with its
 * own, keeping the other replica as a member; both applications start and share the messages.
 */
describe('the registrar racing another replica for the same consumer id (409)', () => {
  let broker: BrokerApp;
  const apps: ConsumerApp[] = [];

  beforeEach(async () => {
    handled.length = 0;
    broker = await startBroker();
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    for (const app of apps.splice(0)) await app.close();
    await broker.close();
  });

  it('answers the 409 by retrying and replacing the settings, keeping both replicas as members', async () => {
    const [firstPort, secondPort] = [await freePort(), await freePort()];
    const find = DispatcherApiClient.prototype.find;
    const create = jest.spyOn(DispatcherApiClient.prototype, 'create');
    let raced = false;
    // The second replica's first look finds nothing; before its POST, the first replica registers (batchSize 1).
    jest.spyOn(DispatcherApiClient.prototype, 'find').mockImplementation(async function (this: DispatcherApiClient, consumerId) {
      const seen = await find.call(this, consumerId);
      if (!raced) {
        raced = true;
        apps.push(await startRegisteredConsumer(broker, [InvoiceListener], { deliveryBatchSize: 1 }, firstPort));
      }
      return seen;
    });

    apps.push(await startRegisteredConsumer(broker, [InvoiceListener], { deliveryBatchSize: 5 }, secondPort));

    const outcomes = await Promise.all(create.mock.results.map((result) => result.value as Promise<boolean>));
    // The first replica's POST created it; the second's met it with other settings (409), and its retry replaced them.
    expect(outcomes).toEqual([true, false]);
    const { status, body } = await broker.request('GET', `/mmmq/dispatchers/${CONSUMER_ID}`);
    expect(status).toBe(200);
    expect(body.batchSize).toBe(5);
    expect(body.hosts).toEqual(
      expect.arrayContaining([
        { protocol: 'HTTP', address: '127.0.0.1', port: firstPort },
        { protocol: 'HTTP', address: '127.0.0.1', port: secondPort },
      ]),
    );

    for (let n = 0; n < 10; n++) await broker.publish('order.created', { n });
    await waitFor(() => handled.length >= 10, { message: () => `both replicas together to handle 10 orders, got ${handled.length}` });
    expect(new Set(handled.map((content) => JSON.stringify(content))).size).toBe(10);
  });

  it('lets two replicas that start at the same moment both boot, as members of one dispatcher with one of their settings', async () => {
    const ports = [await freePort(), await freePort()];
    const started = await Promise.all(
      ports.map((port, i) => startRegisteredConsumer(broker, [InvoiceListener], { deliveryBatchSize: 1 + 4 * i }, port)),
    );
    apps.push(...started);

    const { body } = await broker.request('GET', `/mmmq/dispatchers/${CONSUMER_ID}`);
    expect([1, 5]).toContain(body.batchSize);
    const members = (body.hosts ?? [body.host]).map((host: { port: number }) => host.port).sort();
    expect(members).toEqual([...ports].sort());
  });
});
