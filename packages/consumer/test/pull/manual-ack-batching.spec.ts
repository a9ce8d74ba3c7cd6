import { Injectable } from '@nestjs/common';
import type { INestApplication } from '@nestjs/common';
import { MessageContext, MmmqConsumerModule, MMMQListener } from '../../src';
import { initConsumer } from '../support/consumer-context';
import { FakePullBroker } from '../support/fake-pull-broker';
import { waitFor } from '../support/wait-for';

const CONSUMER_ID = 'billing.manual';
const MESSAGES = 600;
/** What each `ack()` found when it resolved: had an answered ack request named its lease? */
const durableWhenResolved: boolean[] = [];
let broker: FakePullBroker;

@Injectable()
class ManualOrders {
  @MMMQListener({ pattern: 'order.*', consumerId: CONSUMER_ID, ackMode: 'manual' })
  async onOrder(_content: { n: number }, context: MessageContext): Promise<void> {
    await context.ack();
    durableWhenResolved.push(broker.answeredAcks().has(`order.created:${context.offset}:1`));
  }
}

/** A manual handler's acks share requests as auto acks do, and `ack()` still means durable. */
describe('manual acks of a pull listener', () => {
  let app: INestApplication | undefined;

  beforeEach(async () => {
    durableWhenResolved.length = 0;
    broker = await new FakePullBroker().start();
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await broker.close();
  });

  it('are batched: far fewer ack requests than messages, each ack() resolving once its request was answered', async () => {
    broker.publish(
      CONSUMER_ID,
      'order.created',
      Array.from({ length: MESSAGES }, (_, n) => ({ n })),
    );
    const module = MmmqConsumerModule.forRoot({
      app: 'billing',
      broker: broker.url,
      delivery: 'pull',
      pull: { prefetch: 100, waitMs: 200, member: 'billing:test:1' },
    });
    ({ app } = await initConsumer({ imports: [module], providers: [ManualOrders] }));
    await waitFor(() => broker.unsettled(CONSUMER_ID) === 0, 'every message to be acknowledged');
    // The broker settles the last ones before their handlers hear back from it.
    await waitFor(() => durableWhenResolved.length === MESSAGES, 'every ack() to resolve');
    const acks = broker.callsTo('ack').map(({ body }) => body.leases.length);
    expect(acks.reduce((sum, leases) => sum + leases, 0)).toBe(MESSAGES);
    // A handler used to hold its worker and its lane (concurrency 1 by default) until its ack was durable: 600 requests.
    expect(acks.length).toBeLessThanOrEqual(MESSAGES / 20);
    expect(durableWhenResolved.every(Boolean)).toBe(true);
  });
});
