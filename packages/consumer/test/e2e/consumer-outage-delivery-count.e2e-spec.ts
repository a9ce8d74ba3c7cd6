import { Injectable } from '@nestjs/common';
import { MessageContext, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { ConsumerApp, freePort } from '../support/consumer-app';
import { startRegisteredConsumer } from '../support/registered-consumer';
import { waitFor } from '../support/wait-for';

const MESSAGES = 250;
const CONSUMER_ID = 'billing.order-listener.on-order';

// Shared by an application and its restarted successor, which have separate listener instances.
const seen: Array<{ n: number; deliveryCount: number; redelivered: boolean }> = [];

@Injectable()
class OrderListener {
  @MMMQListener('order.*')
  onOrder(content: { n: number }, context: MessageContext): void {
    seen.push({ n: content.n, deliveryCount: context.deliveryCount, redelivered: context.redelivered });
  }
}

/** Every message arrived exactly once, as a first delivery. */
function expectFirstDeliveriesOnly(): void {
  expect(seen.map(({ n }) => n).sort((a, b) => a - b)).toEqual(Array.from({ length: MESSAGES }, (_, n) => n));
  expect(seen.filter(({ deliveryCount, redelivered }) => deliveryCount !== 1 || redelivered)).toEqual([]);
}

describe(`a consumer that is down while ${MESSAGES} messages are published, then up`, () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp | undefined;

  beforeEach(async () => {
    seen.length = 0;
    broker = await startBroker();
  });
  afterEach(async () => {
    await consumer?.close();
    consumer = undefined;
    await broker.close();
  });

  const publishAll = async () => {
    for (let n = 0; n < MESSAGES; n++) await broker.publish('order.created', { n });
  };

  it('after a crash (its host stayed a member; the broker met refused connections meanwhile): every message once, deliveryCount 1, not redelivered', async () => {
    const port = await freePort();
    // What the application registered before it crashed: the same settings, its host a member.
    const registered = await broker.request('POST', '/mmmq/dispatchers', {
      consumerId: CONSUMER_ID,
      host: `http://127.0.0.1:${port}`,
      pattern: 'order.*',
      batchSize: 500,
      maxInFlight: 4,
    });
    expect(registered.status).toBe(201);
    await publishAll();
    await waitFor(async () => (await broker.subscription(CONSUMER_ID, 'order.created'))?.stats.failures >= 3, 'refused pushes');

    consumer = await startRegisteredConsumer(broker, [OrderListener], {}, port);
    await waitFor(() => seen.length >= MESSAGES, `${MESSAGES} deliveries`);
    await broker.caughtUp(CONSUMER_ID, 'order.created');
    expectFirstDeliveriesOnly();
    expect((await broker.subscription(CONSUMER_ID, 'order.created')).stats.redelivered).toBe(0);
  });

  it('stopped while the messages are being published and pushed, then up: every message once, deliveryCount 1, not redelivered', async () => {
    consumer = await startRegisteredConsumer(broker, [OrderListener]);
    const port = consumer.port;
    const publishing = publishAll();
    await waitFor(() => seen.length >= 20, 'the first deliveries');
    await consumer.close();
    await publishing;

    consumer = await startRegisteredConsumer(broker, [OrderListener], {}, port);
    await waitFor(() => seen.length >= MESSAGES, `${MESSAGES} deliveries`);
    await broker.caughtUp(CONSUMER_ID, 'order.created');
    expectFirstDeliveriesOnly();
  });

  it('after a clean shutdown (its host left, and joins again): every message once, deliveryCount 1, not redelivered', async () => {
    consumer = await startRegisteredConsumer(broker, [OrderListener]);
    const port = consumer.port;
    await consumer.close();
    await publishAll();

    consumer = await startRegisteredConsumer(broker, [OrderListener], {}, port);
    await waitFor(() => seen.length >= MESSAGES, `${MESSAGES} deliveries`);
    await broker.caughtUp(CONSUMER_ID, 'order.created');
    expectFirstDeliveriesOnly();
  });
});
