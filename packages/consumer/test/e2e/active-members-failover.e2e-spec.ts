import { Injectable } from '@nestjs/common';
import { MmmqConsumerModule, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { ConsumerApp, freePort, startConsumer } from '../support/consumer-app';
import { waitFor } from '../support/wait-for';

const TOPIC = 'order.created';

@Injectable()
class Orders {
  readonly seen: number[] = [];

  @MMMQListener(TOPIC, { consumerId: 'shop.orders', maxActiveMembers: 2, maxMembers: 3 })
  onOrder(content: { n: number }): void {
    this.seen.push(content.n);
  }
}

describe('maxActiveMembers through @MMMQListener: three instances, two receive', () => {
  let broker: BrokerApp;
  const instances: ConsumerApp[] = [];

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.close()));
    await broker.close();
  });

  const startInstance = async (): Promise<ConsumerApp> => {
    const port = await freePort();
    const app = await startConsumer(
      {
        imports: [MmmqConsumerModule.forRoot({ app: 'shop', broker: broker.url, advertisedUrl: `http://127.0.0.1:${port}` })],
        providers: [Orders],
      },
      { port },
    );
    instances.push(app);
    // Registered before the next one starts: that is the join order.
    await waitFor(async () => (await hosts()).includes(port), `instance ${instances.length} registered`);
    return app;
  };
  const hosts = async (): Promise<number[]> => {
    const { status, body } = await broker.request('GET', '/mmmq/dispatchers/shop.orders');
    return status !== 200 ? [] : (body.hosts ?? (body.host === undefined ? [] : [body.host])).map((host: { port: number }) => host.port);
  };
  const seen = (instance: ConsumerApp) => instance.app.get(Orders).seen;
  const publish = async (from: number, count: number) => {
    for (let n = from; n < from + count; n++) await broker.publish(TOPIC, { n });
  };

  it('delivers to the first two instances only; when one stops, the third (the earliest backup) takes its place', async () => {
    const [a, b, c] = [await startInstance(), await startInstance(), await startInstance()];
    const { body } = await broker.request('GET', '/mmmq/dispatchers/shop.orders');
    expect(body).toMatchObject({ maxActiveMembers: 2, maxMembers: 3, exclusive: false });
    expect(body.hosts).toHaveLength(3);

    await publish(0, 30);
    await broker.caughtUp('shop.orders', TOPIC);
    expect(seen(a).length + seen(b).length).toBe(30);
    expect(seen(c)).toEqual([]);

    await a.close();
    instances.splice(instances.indexOf(a), 1);
    await publish(30, 30);
    await broker.caughtUp('shop.orders', TOPIC);
    await waitFor(() => new Set([...seen(a), ...seen(b), ...seen(c)]).size === 60, 'the second 30 delivered to b and c');
    expect(seen(c).length).toBeGreaterThan(0);
    expect(seen(a).every((n) => n < 30)).toBe(true);
  }, 60_000);
});
