import { Injectable } from '@nestjs/common';
import { InvalidConsumerOptionsError, InvalidListenerError, MmmqConsumerModule, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { ConsumerApp } from '../support/consumer-app';
import { initConsumer } from '../support/consumer-context';
import { startPullingConsumer } from '../support/pulling-consumer';
import { startRegisteredConsumer } from '../support/registered-consumer';

@Injectable()
class LimitedListeners {
  @MMMQListener('audit.*', { consumerId: 'audit.recent', maxBacklog: 1000, backlogOverflow: 'dropOldest' })
  onAudit(): void {}

  @MMMQListener('order.*', { consumerId: 'billing.orders', maxBacklog: 50 })
  onOrder(): void {}
}

const dispatcher = async (broker: BrokerApp, consumerId: string) => (await broker.request('GET', `/mmmq/dispatchers/${consumerId}`)).body;

describe('listeners with a backlog limit', () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp | undefined;
  let closePull: (() => Promise<void>) | undefined;

  beforeEach(async () => {
    broker = await startBroker();
  });
  afterEach(async () => {
    await consumer?.close();
    await closePull?.();
    consumer = closePull = undefined;
    await broker.close();
  });

  it('push: registers maxBacklog and backlogOverflow (reject by default) with the dispatcher', async () => {
    consumer = await startRegisteredConsumer(broker, [LimitedListeners]);
    expect(await dispatcher(broker, 'audit.recent')).toMatchObject({ maxBacklog: 1000, backlogOverflow: 'dropOldest' });
    expect(await dispatcher(broker, 'billing.orders')).toMatchObject({ maxBacklog: 50, backlogOverflow: 'reject' });
  });

  it('pull: registers the limit with the pull dispatcher', async () => {
    const { app } = await startPullingConsumer(broker, [LimitedListeners]);
    closePull = () => app.close();
    expect(await dispatcher(broker, 'billing.orders')).toMatchObject({ maxBacklog: 50, backlogOverflow: 'reject' });
  });

  it('listeners[name] overrides the decorator field by field, and a changed limit updates the dispatcher at the next start', async () => {
    consumer = await startRegisteredConsumer(broker, [LimitedListeners]);
    await consumer.close();
    consumer = await startRegisteredConsumer(broker, [LimitedListeners], {
      listeners: { 'LimitedListeners.onOrder': { backlogOverflow: 'deadLetter' } },
    });
    expect(await dispatcher(broker, 'billing.orders')).toMatchObject({ maxBacklog: 50, backlogOverflow: 'deadLetter' });
  });
});

describe('an invalid listener backlog limit', () => {
  it('in listeners[name] fails bootstrap naming the option', async () => {
    const starting = initConsumer({
      imports: [
        MmmqConsumerModule.forRoot({
          app: 'billing',
          broker: 'http://127.0.0.1:1',
          delivery: 'pull',
          listeners: { 'LimitedListeners.onOrder': { maxBacklog: 0 } },
        }),
      ],
      providers: [LimitedListeners],
    });
    await expect(starting).rejects.toBeInstanceOf(InvalidConsumerOptionsError);
    await expect(starting).rejects.toThrow(
      'listeners["LimitedListeners.onOrder"].maxBacklog must be an integer from 1 to 4294967295, got 0',
    );
  });

  it('in the decorator fails bootstrap naming the method: an overflow needs a limit', async () => {
    @Injectable()
    class BadListener {
      @MMMQListener('order.*', { backlogOverflow: 'dropOldest' })
      onOrder(): void {}
    }
    const starting = initConsumer({
      imports: [MmmqConsumerModule.forRoot({ app: 'billing', broker: 'http://127.0.0.1:1', delivery: 'pull' })],
      providers: [BadListener],
    });
    await expect(starting).rejects.toBeInstanceOf(InvalidListenerError);
    await expect(starting).rejects.toThrow('BadListener.onOrder has an invalid backlog limit: backlogOverflow needs maxBacklog');
  });
});
