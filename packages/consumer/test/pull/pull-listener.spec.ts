import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import { MessageContext, MmmqConsumerModule, MMMQListener, MmmqConsumerOptions, NonRetriableError } from '../../src';
import { CapturedLogger } from '../support/captured-logger';
import { initConsumer } from '../support/consumer-context';
import { FakePullBroker } from '../support/fake-pull-broker';
import { Gate } from '../support/gate';
import { waitFor } from '../support/wait-for';

const CONSUMER_ID = 'billing.orders';
const handled: Array<{ n: number; deliveryCount: number; redelivered: boolean }> = [];
let behaviour: (n: number, context: MessageContext) => unknown = () => undefined;

@Injectable()
class Orders {
  @MMMQListener({ pattern: 'order.*', consumerId: CONSUMER_ID })
  async onOrder(content: { n: number }, context: MessageContext): Promise<unknown> {
    handled.push({ n: content.n, deliveryCount: context.deliveryCount, redelivered: context.redelivered });
    return behaviour(content.n, context);
  }
}

describe('a pull listener (against a stand-in broker)', () => {
  let broker: FakePullBroker;
  let app: INestApplication | undefined;
  let logs: CapturedLogger;

  async function start(options: MmmqConsumerOptions = {}): Promise<void> {
    const module = MmmqConsumerModule.forRoot({
      app: 'billing',
      broker: broker.url,
      delivery: 'pull',
      pull: { waitMs: 200, member: 'billing:test:1' },
      ...options,
    });
    ({ app, logs } = await initConsumer({ imports: [module], providers: [Orders] }));
  }
  const numbers = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ({ n: from + i }));

  beforeEach(async () => {
    handled.length = 0;
    behaviour = () => undefined;
    broker = await new FakePullBroker().start();
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await broker.close();
  });

  it('registers a dispatcher without a host, handles the fetched messages in order and acknowledges them', async () => {
    broker.publish(CONSUMER_ID, 'order.created', numbers(1, 30));
    await start({ pull: { prefetch: 10, waitMs: 200, member: 'billing:test:1' } });
    await waitFor(() => broker.unsettled(CONSUMER_ID) === 0, 'every message to be acknowledged');
    expect(broker.dispatchers.get(CONSUMER_ID)).toEqual({ consumerId: CONSUMER_ID, pattern: 'order.*' });
    expect(handled.map(({ n }) => n)).toEqual(numbers(1, 30).map(({ n }) => n));
    const fetches = broker.callsTo('fetch').map(({ body }) => body);
    expect(fetches[0]).toEqual({ max: 10, waitMs: 200, member: 'billing:test:1', autoAck: false });
    expect(fetches.every(({ max }) => max >= 5 && max <= 10)).toBe(true);
    expect(broker.callsTo('ack').flatMap(({ body }) => body.leases)).toHaveLength(30);
  });

  it('runs in an application context without an HTTP server', async () => {
    broker.publish(CONSUMER_ID, 'order.created', numbers(1, 3));
    const module = MmmqConsumerModule.forRoot({
      app: 'billing',
      broker: broker.url,
      delivery: 'pull',
      pull: { waitMs: 200 },
      isGlobal: true,
    });
    @Module({ imports: [module], providers: [Orders] })
    class StandaloneModule {}
    const context = await NestFactory.createApplicationContext(StandaloneModule, { logger: false });
    try {
      await waitFor(() => broker.unsettled(CONSUMER_ID) === 0, 'every message to be acknowledged');
      expect(handled.map(({ n }) => n)).toEqual([1, 2, 3]);
    } finally {
      await context.close();
    }
  });

  it('NACKs a failing handler (the broker redelivers it) and terminates a NonRetriableError', async () => {
    behaviour = (n, context) => {
      if (n === 1 && context.deliveryCount === 1) throw new Error('flaky');
      if (n === 2) return new NonRetriableError('never valid');
    };
    broker.publish(CONSUMER_ID, 'order.created', numbers(1, 3));
    await start();
    await waitFor(() => broker.unsettled(CONSUMER_ID) === 0, 'every message to be settled');
    expect(handled.filter(({ n }) => n === 1)).toEqual([
      { n: 1, deliveryCount: 1, redelivered: false },
      { n: 1, deliveryCount: 2, redelivered: true },
    ]);
    expect(broker.callsTo('nack').map(({ body }) => body)).toEqual([{ leases: ['order.created:0:1'] }]);
    expect(broker.callsTo('terminate').map(({ body }) => body)).toEqual([{ leases: ['order.created:1:1'], reason: 'never valid' }]);
  });

  it('manual mode: settles when the handler says so, with a delay, and acks are durable when ack() resolves', async () => {
    const acked: number[] = [];
    behaviour = async (n, context) => {
      if (n === 1 && context.deliveryCount === 1) return context.nack({ delayMs: 1500 });
      await context.ack();
      acked.push(broker.callsTo('ack').length);
    };
    broker.publish(CONSUMER_ID, 'order.created', numbers(1, 2));
    await start({ ackMode: 'manual' });
    await waitFor(() => broker.unsettled(CONSUMER_ID) === 0, 'both messages to be settled');
    expect(broker.callsTo('nack').map(({ body }) => body)).toEqual([{ leases: ['order.created:0:1'], delayMs: 1500 }]);
    expect(acked.every((count) => count > 0)).toBe(true);
  });

  it('inProgress() extends the lease of a pulled message', async () => {
    behaviour = (_n, context) => context.inProgress();
    broker.publish(CONSUMER_ID, 'order.created', numbers(1, 1));
    await start({ pull: { waitMs: 200, member: 'billing:test:1', ackTimeoutMs: 60_000 } });
    await waitFor(() => broker.unsettled(CONSUMER_ID) === 0, 'the message to be acknowledged');
    expect(broker.callsTo('extend').map(({ body }) => body)).toEqual([{ leases: ['order.created:0:1'], ackTimeoutMs: 60_000 }]);
  });

  it('dupsOk acknowledges lazily in batches, far fewer requests than messages', async () => {
    broker.publish(CONSUMER_ID, 'order.created', numbers(1, 250));
    await start({ ackMode: 'dupsOk', pull: { prefetch: 100, waitMs: 200, member: 'billing:test:1' } });
    await waitFor(() => broker.unsettled(CONSUMER_ID) === 0, 'every message to be acknowledged');
    const acks = broker.callsTo('ack').map(({ body }) => body.leases.length);
    expect(acks.reduce((a, b) => a + b, 0)).toBe(250);
    expect(acks.length).toBeLessThanOrEqual(10);
    expect(Math.max(...acks)).toBeLessThanOrEqual(100);
  });

  it("none: fetches with autoAck, so nothing is acknowledged afterwards, and a failing handler's message is gone", async () => {
    behaviour = () => {
      throw new Error('lost on purpose');
    };
    broker.publish(CONSUMER_ID, 'order.created', numbers(1, 5));
    await start({ ackMode: 'none' });
    await waitFor(() => handled.length === 5, 'every message to be handled');
    expect(broker.callsTo('fetch')[0].body.autoAck).toBe(true);
    expect(broker.callsTo('ack').length + broker.callsTo('nack').length).toBe(0);
    expect(logs.lines.some((line) => line.includes("the message is dropped: with ackMode 'none'"))).toBe(true);
  });

  it('backs off when the broker fails, logs it once per outage, and carries on once it answers again', async () => {
    broker.failures = [{ status: 503 }, { status: 503 }, { status: 503 }];
    broker.publish(CONSUMER_ID, 'order.created', numbers(1, 3));
    await start();
    await waitFor(() => broker.unsettled(CONSUMER_ID) === 0, 'every message after the failures');
    expect(logs.lines.filter((line) => line.includes(`Fetching messages of ${CONSUMER_ID} failed`))).toHaveLength(1);
    expect(logs.lines).toContain(`Fetching messages of ${CONSUMER_ID} works again after 3 failed tries`);
  });

  it('on shutdown stops fetching, finishes the running handler, acknowledges it and releases what it holds', async () => {
    const gate = new Gate();
    behaviour = () => gate.promise;
    broker.publish(CONSUMER_ID, 'order.created', numbers(1, 5));
    await start({ pull: { prefetch: 5, waitMs: 200, member: 'billing:test:1' } });
    await waitFor(() => handled.length === 1, 'the first handler to start');
    const closing = app!.close();
    await waitFor(() => logs.lines.some((line) => line.includes('Shutting down')), 'shutdown to begin');
    const fetchesAtShutdown = broker.callsTo('fetch').length;
    gate.open();
    await closing;
    app = undefined;
    expect(broker.callsTo('fetch')).toHaveLength(fetchesAtShutdown);
    expect(handled.map(({ n }) => n)).toEqual([1]);
    expect(broker.callsTo('ack').flatMap(({ body }) => body.leases)).toEqual(['order.created:0:1']);
    expect(broker.callsTo('recover').map(({ body }) => body)).toEqual([{ member: 'billing:test:1', leave: true }]);
    expect(broker.unsettled(CONSUMER_ID)).toBe(4);
  });
});
