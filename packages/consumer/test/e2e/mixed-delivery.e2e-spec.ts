import { Injectable } from '@nestjs/common';
import { MessageContext, MmmqConsumerModule, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { ConsumerApp, freePort, startConsumer } from '../support/consumer-app';
import { waitFor } from '../support/wait-for';

const MESSAGES = 50;

@Injectable()
class Orders {
  readonly seen: number[] = [];

  @MMMQListener('order.*', { consumerId: 'shop.orders' })
  onOrder(content: { n: number }): void {
    this.seen.push(content.n);
  }
}

@Injectable()
class Invoices {
  readonly seen: number[] = [];

  @MMMQListener('invoice.*', { consumerId: 'shop.invoices', delivery: 'pull' })
  onInvoice(content: { n: number }, context: MessageContext): void {
    expect(context.redelivered).toBe(false);
    this.seen.push(content.n);
  }
}

describe('one consumer module mixing push and pull listeners', () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp | undefined;

  beforeEach(async () => {
    broker = await startBroker();
  });
  afterEach(async () => {
    await consumer?.close();
    consumer = undefined;
    await broker.close();
  });

  /** The push hosts of a dispatcher (a pull dispatcher has none). */
  const hostsOf = async (consumerId: string): Promise<number[]> => {
    const { body } = await broker.request('GET', `/mmmq/dispatchers/${consumerId}`);
    const hosts: Array<{ port: number }> = body.hosts ?? (body.host === undefined ? [] : [body.host]);
    return hosts.map((host) => host.port);
  };
  const publishBoth = async () => {
    for (let n = 0; n < MESSAGES; n++) {
      await broker.publish('order.created', { n });
      await broker.publish('invoice.issued', { n });
    }
  };
  const expectBothDelivered = async () => {
    const orders = consumer!.app.get(Orders);
    const invoices = consumer!.app.get(Invoices);
    await waitFor(
      () => orders.seen.length === MESSAGES && invoices.seen.length === MESSAGES,
      'every order pushed and every invoice pulled',
    );
    expect(orders.seen).toEqual([...Array(MESSAGES).keys()]);
    expect(invoices.seen).toEqual([...Array(MESSAGES).keys()]);
    await broker.caughtUp('shop.orders', 'order.created');
    await broker.caughtUp('shop.invoices', 'invoice.issued');
  };

  it('pushes to the listeners that push and lets the one that says delivery: pull fetch its own', async () => {
    const port = await freePort();
    consumer = await startConsumer(
      {
        imports: [MmmqConsumerModule.forRoot({ app: 'shop', broker: broker.url, advertisedUrl: `http://127.0.0.1:${port}` })],
        providers: [Orders, Invoices],
      },
      { port },
    );
    await publishBoth();
    await expectBothDelivered();
    expect(await hostsOf('shop.orders')).toEqual([port]);
    expect(await hostsOf('shop.invoices')).toEqual([]);
  });

  it('with delivery: pull as the module default, a listener set to push in the listeners option is pushed to', async () => {
    const port = await freePort();
    const options = {
      app: 'shop',
      broker: broker.url,
      advertisedUrl: `http://127.0.0.1:${port}`,
      delivery: 'pull' as const,
      listeners: { 'Orders.onOrder': { delivery: 'push' as const } },
    };
    consumer = await startConsumer({ imports: [MmmqConsumerModule.forRoot(options)], providers: [Orders, Invoices] }, { port });
    await publishBoth();
    await expectBothDelivered();
    expect(await hostsOf('shop.orders')).toEqual([port]);
    expect(await hostsOf('shop.invoices')).toEqual([]);
  });
});
