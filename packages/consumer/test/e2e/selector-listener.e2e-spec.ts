import { Injectable } from '@nestjs/common';
import { InvalidConsumerOptionsError, InvalidListenerError, MmmqConsumerModule, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { ConsumerApp } from '../support/consumer-app';
import { initConsumer } from '../support/consumer-context';
import { startPullingConsumer } from '../support/pulling-consumer';
import { startRegisteredConsumer } from '../support/registered-consumer';

const received = { eu: [] as string[], other: [] as string[] };

/** Two listeners of one topic with complementary selectors: each message whose region is known goes to one. */
@Injectable()
class RegionListeners {
  @MMMQListener('order.*', { consumerId: 'billing.eu', selector: "region = 'EU'" })
  onEu(content: string): void {
    received.eu.push(content);
  }

  @MMMQListener('order.*', { consumerId: 'billing.other', selector: "region <> 'EU'" })
  onOther(content: string): void {
    received.other.push(content);
  }
}

const ORDERS: Array<[string, Record<string, string>]> = [
  ['eu-1', { region: 'EU' }],
  ['us-1', { region: 'US' }],
  ['eu-2', { region: 'EU' }],
  ['uk-1', { region: 'UK' }],
  // No region: neither selector is TRUE for it (a missing header is UNKNOWN), so neither listener gets it.
  ['unknown', {}],
];

async function publishOrders(broker: BrokerApp): Promise<void> {
  for (const [content, headers] of ORDERS) {
    const response = await broker.request('POST', '/mmmq/messages', { topic: 'order.created', content, headers });
    if (response.status !== 200) throw new Error(`publish failed: ${response.status} ${JSON.stringify(response.body)}`);
  }
}

async function expectEachGotTheirs(broker: BrokerApp): Promise<void> {
  await broker.caughtUp('billing.eu', 'order.created');
  await broker.caughtUp('billing.other', 'order.created');
  expect(received).toEqual({ eu: ['eu-1', 'eu-2'], other: ['us-1', 'uk-1'] });
  expect((await broker.subscription('billing.eu', 'order.created')).stats.filtered).toBe(3);
  expect((await broker.subscription('billing.other', 'order.created')).stats.filtered).toBe(3);
}

describe('listeners with selectors', () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp | undefined;
  let closePull: (() => Promise<void>) | undefined;

  beforeEach(async () => {
    received.eu.length = 0;
    received.other.length = 0;
    broker = await startBroker();
  });
  afterEach(async () => {
    await consumer?.close();
    await closePull?.();
    consumer = closePull = undefined;
    await broker.close();
  });

  it('push: two listeners of one topic with complementary selectors each receive only theirs', async () => {
    consumer = await startRegisteredConsumer(broker, [RegionListeners]);
    expect((await broker.request('GET', '/mmmq/dispatchers/billing.eu')).body.selector).toBe("region = 'EU'");
    await publishOrders(broker);
    await expectEachGotTheirs(broker);
  });

  it('pull: the same listeners fetching receive only theirs', async () => {
    const { app } = await startPullingConsumer(broker, [RegionListeners]);
    closePull = () => app.close();
    expect((await broker.request('GET', '/mmmq/dispatchers/billing.other')).body.selector).toBe("region <> 'EU'");
    await publishOrders(broker);
    await expectEachGotTheirs(broker);
  });

  it('listeners[name].selector overrides the decorator, and a changed selector updates the dispatcher at the next start', async () => {
    consumer = await startRegisteredConsumer(broker, [RegionListeners]);
    await consumer.close();
    consumer = await startRegisteredConsumer(broker, [RegionListeners], {
      listeners: { 'RegionListeners.onEu': { selector: "region IN ('EU', 'UK')" } },
    });
    expect((await broker.request('GET', '/mmmq/dispatchers/billing.eu')).body.selector).toBe("region IN ('EU', 'UK')");
    await publishOrders(broker);
    await broker.caughtUp('billing.eu', 'order.created');
    await broker.caughtUp('billing.other', 'order.created');
    expect(received).toEqual({ eu: ['eu-1', 'eu-2', 'uk-1'], other: ['us-1', 'uk-1'] });
  });
});

describe('an invalid listener selector', () => {
  it('in listeners[name] fails bootstrap naming the option and the position', async () => {
    const starting = initConsumer({
      imports: [
        MmmqConsumerModule.forRoot({
          app: 'billing',
          broker: 'http://127.0.0.1:1',
          delivery: 'pull',
          listeners: { 'RegionListeners.onEu': { selector: "region = = 'EU'" } },
        }),
      ],
      providers: [RegionListeners],
    });
    await expect(starting).rejects.toBeInstanceOf(InvalidConsumerOptionsError);
    await expect(starting).rejects.toThrow(
      'listeners["RegionListeners.onEu"].selector is invalid at position 10: expected a value after "=", found "="',
    );
  });

  it('in the decorator fails bootstrap naming the method and the position', async () => {
    @Injectable()
    class BadListener {
      @MMMQListener('order.*', { selector: 'amount >' })
      onOrder(): void {}
    }
    const starting = initConsumer({
      imports: [MmmqConsumerModule.forRoot({ app: 'billing', broker: 'http://127.0.0.1:1', delivery: 'pull' })],
      providers: [BadListener],
    });
    await expect(starting).rejects.toBeInstanceOf(InvalidListenerError);
    await expect(starting).rejects.toThrow(
      'BadListener.onOrder: selector is invalid at position 9: expected a value after ">", found end of input',
    );
  });
});
