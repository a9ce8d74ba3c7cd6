import { MmmqTransport, TransportListener, TransportPublisher, TransportSubscriber, TransportSubscriberState } from '@mmmq/core';
import { INestApplication, Injectable } from '@nestjs/common';
import { Registry } from 'prom-client';
import { MmmqConsumerModule, MMMQListener } from '../../src';
import { MmmqConsumerMetricsModule } from '../../src/metrics';
import { initConsumer } from '../support/consumer-context';

/** A transport whose subscriber reports the state the test sets. */
class StatefulTransport extends MmmqTransport {
  readonly name = 'stateful';
  state: TransportSubscriberState = { receiving: true, since: Date.now() };

  createPublisher(): TransportPublisher {
    throw new Error('a consumer never publishes');
  }

  createSubscriber(): TransportSubscriber {
    return {
      subscribe: async () => undefined,
      stopReceiving: async () => undefined,
      close: async () => undefined,
      state: () => this.state,
    };
  }

  unsupported(_listener: TransportListener): string[] {
    return [];
  }
}

@Injectable()
class OrderListener {
  @MMMQListener('order.created')
  async onCreated(): Promise<void> {}
}

async function gauge(registry: Registry): Promise<Array<{ labels: object; value: number }>> {
  const metric = (await registry.getMetricsAsJSON()).find((entry) => entry.name === 'mmmq_consumer_transport_receiving');
  return (metric?.values ?? []).map(({ labels, value }) => ({ labels, value }));
}

describe('the mmmq_consumer_transport_receiving gauge', () => {
  let app: INestApplication | undefined;
  afterEach(() => app?.close());

  it("is 1 while the transport's subscriber receives and 0 while it does not, labelled with the transport", async () => {
    const registry = new Registry();
    const transport = new StatefulTransport();
    ({ app } = await initConsumer({
      imports: [MmmqConsumerMetricsModule.forRoot({ registry }), MmmqConsumerModule.forRoot({ app: 'billing', transport })],
      providers: [OrderListener],
    }));
    expect(await gauge(registry)).toEqual([{ labels: { transport: 'stateful' }, value: 1 }]);
    transport.state = { receiving: false, since: Date.now(), reason: 'disconnected, reconnecting: connect ECONNREFUSED' };
    expect(await gauge(registry)).toEqual([{ labels: { transport: 'stateful' }, value: 0 }]);
  });

  it('has no sample on the MMMQ broker', async () => {
    const registry = new Registry();
    ({ app } = await initConsumer({ imports: [MmmqConsumerMetricsModule.forRoot({ registry }), MmmqConsumerModule.forRoot()] }));
    expect(await gauge(registry)).toEqual([]);
  });
});
