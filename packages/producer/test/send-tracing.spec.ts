import { InMemoryBroker, MmmqTestingModule } from '@mmmq/core/testing';
import { InMemoryTracing, startInMemoryTracing } from '@mmmq/test-support';
import { Test, TestingModule } from '@nestjs/testing';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { MmmqProducerModule, ProduceError, Producer } from '../src';
import { createProducer } from '../src/internal';

const OUTBOX_TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('the send span of a publication', () => {
  let tracing: InMemoryTracing;
  let module: TestingModule;
  let broker: InMemoryBroker;
  let producer: Producer;

  beforeAll(() => {
    tracing = startInMemoryTracing();
  });
  afterAll(() => tracing.close());
  beforeEach(async () => {
    tracing.reset();
    module = await Test.createTestingModule({ imports: [MmmqTestingModule.forRoot(), MmmqProducerModule.forRoot()] }).compile();
    await module.init();
    broker = module.get(InMemoryBroker);
    producer = module.get(Producer);
  });
  afterEach(() => module.close());

  const traceparentOf = (spanContext: { traceId: string; spanId: string }) => `00-${spanContext.traceId}-${spanContext.spanId}-01`;

  it('is one span for an atomic batch across topics, whose context every message carries', async () => {
    const published = await producer.produceBatch([
      { topic: 'invoice.created', content: { n: 1 } },
      { topic: 'invoice.created', content: { n: 2 } },
      { topic: 'ledger.entry', content: { n: 3 }, headers: { source: 'billing' } },
    ]);
    const [send] = await tracing.waitForSpans('send');
    expect(tracing.spans()).toHaveLength(1);
    expect(send.kind).toBe(SpanKind.PRODUCER);
    expect(send.attributes).toEqual({
      'messaging.system': 'mmmq',
      'messaging.operation.name': 'send',
      'messaging.operation.type': 'send',
      'messaging.batch.message_count': 3,
    });
    const stored = broker.published();
    expect(stored.map((message) => message.id).sort()).toEqual(published.map(({ id }) => id).sort());
    for (const message of stored) expect(message.headers.traceparent).toBe(traceparentOf(send.spanContext()));
    expect(stored.find((message) => message.topic === 'ledger.entry')!.headers.source).toBe('billing');
  });

  it('names the topic and the message id for one message, as a child of the span the caller is in', async () => {
    const { id } = await trace
      .getTracer('test')
      .startActiveSpan('place order', (span) => producer.produce('order.created', { orderId: 1 }).finally(() => span.end()));
    const [send] = await tracing.waitForSpans('send order.created');
    const caller = tracing.spans().find((span) => span.name === 'place order')!;
    expect(send.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
    expect(send.attributes).toMatchObject({ 'messaging.destination.name': 'order.created', 'messaging.message.id': id });
    expect(send.attributes['messaging.batch.message_count']).toBeUndefined();
  });

  it('keeps the creation context a message already carries (an outbox row’s) and links to it', async () => {
    await producer.produceBatch([
      { topic: 'order.placed', content: { n: 1 }, headers: { traceparent: OUTBOX_TRACEPARENT } },
      { topic: 'order.placed', content: { n: 2 }, headers: { traceparent: OUTBOX_TRACEPARENT } },
    ]);
    const [send] = await tracing.waitForSpans('send order.placed');
    expect(send.kind).toBe(SpanKind.CLIENT);
    expect(send.links.map((link) => link.context.spanId)).toEqual(['b7ad6b7169203331', 'b7ad6b7169203331']);
    expect(broker.published('order.placed').map((message) => message.headers.traceparent)).toEqual([
      OUTBOX_TRACEPARENT,
      OUTBOX_TRACEPARENT,
    ]);
  });

  it('is one span for a transaction', async () => {
    await producer.transaction((tx) => {
      tx.produce('order.placed', { n: 1 });
      tx.produce('order.placed', { n: 2 });
    });
    const [send] = await tracing.waitForSpans('send order.placed');
    expect(send.attributes['messaging.batch.message_count']).toBe(2);
    expect(tracing.spans()).toHaveLength(1);
  });

  it('ends with an error, and its type, when the publication fails', async () => {
    const unreachable = createProducer({ broker: 'http://127.0.0.1:1', maxRetryCount: 0, batching: false });
    try {
      await expect(unreachable.produce('order.placed', { n: 1 })).rejects.toThrow(ProduceError);
    } finally {
      await unreachable.close();
    }
    const [send] = await tracing.waitForSpans('send order.placed');
    expect(send.status.code).toBe(SpanStatusCode.ERROR);
    expect(send.attributes['error.type']).toBe('ProduceError');
    expect(send.events.map((event) => event.name)).toEqual(['exception']);
  });
});
