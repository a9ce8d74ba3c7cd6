import { MmmqBrokerModule } from '@mmmq/broker';
import { MmmqProducerModule, Producer } from '@mmmq/producer';
import { createProducer } from '@mmmq/producer/internal';
import { BrokerApp, InMemoryTracing, makeTempDir, removeTempDir, startBroker, startInMemoryTracing } from '@mmmq/test-support';
import { INestApplication, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { MessageContext, MMMQListener, MmmqConsumerModule, NonRetriableError } from '../../src';
import { startPullingConsumer } from '../support/pulling-consumer';
import { startRegisteredConsumer } from '../support/registered-consumer';

interface Handled {
  order: string;
  traceparent: unknown;
  /** The span active while the handler ran. */
  spanId: string | undefined;
}

const handled: Handled[] = [];

@Injectable()
class InvoiceListener {
  @MMMQListener('order.*', { consumerId: 'billing.invoices' })
  onOrder(order: { id: string; fail?: 'once' | 'always' }, context: MessageContext): void {
    handled.push({ order: order.id, traceparent: context.headers.traceparent, spanId: trace.getActiveSpan()?.spanContext().spanId });
    if (order.fail === 'always') throw new NonRetriableError('not an order we sell');
    if (order.fail === 'once' && context.deliveryCount === 1) throw new Error('the ledger is busy');
  }
}

/** Publishes inside an application span, as a request handler would. */
function publishFromRequest(producer: Producer, order: object): Promise<unknown> {
  return trace.getTracer('test').startActiveSpan('POST /checkout', async (span) => {
    try {
      return await producer.produce('order.placed', order);
    } finally {
      span.end();
    }
  });
}

/** The checks every delivery mode must pass: one send span, one process span, one trace, the context in the headers. */
function expectOneTrace(spans: ReadableSpan[], order: string): { send: ReadableSpan; process: ReadableSpan } {
  const request = spans.find((span) => span.name === 'POST /checkout')!;
  const sends = spans.filter((span) => span.name === 'send order.placed');
  const processes = spans.filter((span) => span.name === 'process order.placed');
  expect(sends).toHaveLength(1);
  expect(processes).toHaveLength(1);
  const [send] = sends;
  const [process] = processes;
  const traceId = request.spanContext().traceId;
  expect(send.spanContext().traceId).toBe(traceId);
  expect(send.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
  expect(send.kind).toBe(SpanKind.PRODUCER);
  expect(send.attributes).toMatchObject({
    'messaging.system': 'mmmq',
    'messaging.operation.name': 'send',
    'messaging.operation.type': 'send',
    'messaging.destination.name': 'order.placed',
    'messaging.message.id': expect.any(String),
  });
  expect(process.spanContext().traceId).toBe(traceId);
  expect(process.parentSpanContext?.spanId).toBe(send.spanContext().spanId);
  expect(process.links.map((link) => link.context.spanId)).toEqual([send.spanContext().spanId]);
  expect(process.kind).toBe(SpanKind.CONSUMER);
  expect(process.attributes).toMatchObject({
    'messaging.system': 'mmmq',
    'messaging.operation.type': 'process',
    'messaging.destination.name': 'order.placed',
    'messaging.consumer.group.name': 'billing.invoices',
    'messaging.message.id': send.attributes['messaging.message.id'],
    'messaging.mmmq.message.delivery_count': 1,
    'messaging.mmmq.outcome': 'ack',
  });
  // What crossed the wire: the send span's context, in the message's W3C header; the handler ran in the process span.
  const seen = handled.find((entry) => entry.order === order)!;
  expect(seen.traceparent).toBe(`00-${traceId}-${send.spanContext().spanId}-01`);
  expect(seen.spanId).toBe(process.spanContext().spanId);
  return { send, process };
}

describe('a message traced from the producer to the handler, through the broker', () => {
  let tracing: InMemoryTracing;

  beforeAll(() => {
    tracing = startInMemoryTracing();
  });
  afterAll(() => tracing.close());
  beforeEach(() => {
    handled.length = 0;
    tracing.reset();
  });

  describe('with a broker, a producer and a consumer each in an application of its own, over HTTP', () => {
    let broker: BrokerApp;
    let producer: Producer;
    let consumer: { close(): Promise<void> } | undefined;

    beforeEach(async () => {
      broker = await startBroker();
      producer = createProducer({ broker: broker.url });
    });
    afterEach(async () => {
      await consumer?.close();
      consumer = undefined;
      await producer.close();
      await broker.close();
    });

    it('pushed: one send span and one process span in one trace, the process span a child of the send span', async () => {
      consumer = await startRegisteredConsumer(broker, [InvoiceListener]);
      await publishFromRequest(producer, { id: 'o-push' });
      await tracing.waitForSpans('process order.placed');
      expectOneTrace(tracing.spans(), 'o-push');
    });

    it('pulled: the same trace, the process span a child of the send span', async () => {
      const { app } = await startPullingConsumer(broker, [InvoiceListener]);
      consumer = app;
      await publishFromRequest(producer, { id: 'o-pull' });
      await tracing.waitForSpans('process order.placed');
      expectOneTrace(tracing.spans(), 'o-pull');
    });

    it('records each delivery of a message as a process span of the same send span, with its outcome and delivery count', async () => {
      consumer = await startRegisteredConsumer(broker, [InvoiceListener]);
      await publishFromRequest(producer, { id: 'o-retried', fail: 'once' });
      await publishFromRequest(producer, { id: 'o-refused', fail: 'always' });
      const processes = await tracing.waitForSpans('process order.placed', 3);
      const sends = tracing.spans().filter((span) => span.name === 'send order.placed');
      const outcomes = processes.map((span) => ({
        send: sends.findIndex((send) => send.spanContext().spanId === span.parentSpanContext?.spanId),
        outcome: span.attributes['messaging.mmmq.outcome'],
        deliveryCount: span.attributes['messaging.mmmq.message.delivery_count'],
        status: span.status.code,
      }));
      expect(outcomes).toEqual(
        expect.arrayContaining([
          { send: 0, outcome: 'nack', deliveryCount: 1, status: SpanStatusCode.ERROR },
          { send: 0, outcome: 'ack', deliveryCount: 2, status: SpanStatusCode.UNSET },
          { send: 1, outcome: 'dead_letter', deliveryCount: 1, status: SpanStatusCode.ERROR },
        ]),
      );
    });
  });

  describe('with the broker, the listener and the producer in one application (in process)', () => {
    let rootDir: string;
    let app: INestApplication | undefined;

    beforeEach(async () => {
      rootDir = await makeTempDir();
    });
    afterEach(async () => {
      await app?.close();
      await removeTempDir(rootDir);
    });

    it('links the in-process handler to the send span through the headers as well', async () => {
      @Module({
        imports: [
          MmmqBrokerModule.forRoot({ persistence: { rootDir } }),
          MmmqConsumerModule.forRoot({ app: 'shop' }),
          MmmqProducerModule.forRoot(),
        ],
        providers: [InvoiceListener],
      })
      class ShopModule {}
      app = await NestFactory.create(ShopModule, { logger: false, abortOnError: false });
      await app.init();
      await publishFromRequest(app.get(Producer), { id: 'o-in-process' });
      await tracing.waitForSpans('process order.placed');
      expectOneTrace(tracing.spans(), 'o-in-process');
    });
  });
});
