import { OUTBOX_HEADERS } from '@mmmq/core';
import { BrokerApp, InMemoryTracing, startBroker, startInMemoryTracing } from '@mmmq/test-support';
import { SpanKind, trace } from '@opentelemetry/api';
import { OutboxRelay } from '../src/relay/outbox-relay';
import { addCommitted, testRelay } from './support/outbox-fixtures';
import { createTestDatabase, TestDatabase } from './support/test-database';

describe('the trace context of an outbox row, from the writing transaction through the relay', () => {
  let tracing: InMemoryTracing;
  let db: TestDatabase;
  let broker: BrokerApp;
  let relay: OutboxRelay | undefined;

  beforeAll(async () => {
    tracing = startInMemoryTracing();
    db = await createTestDatabase();
    broker = await startBroker();
  });
  afterEach(async () => {
    await relay?.close();
    relay = undefined;
  });
  afterAll(async () => {
    await broker?.close();
    await db?.drop();
    await tracing.close();
  });

  it('stores the active span’s context in the row, and the relay publishes it as the message’s creation context', async () => {
    const writer = await trace.getTracer('test').startActiveSpan('POST /orders', async (span) => {
      try {
        await addCommitted(db, [{ topic: 'traced.order', content: { orderId: 'o-1' }, id: 'traced-1' }]);
        return span.spanContext();
      } finally {
        span.end();
      }
    });
    const traceparent = `00-${writer.traceId}-${writer.spanId}-01`;
    const { rows } = await db.pool.query(`SELECT traceparent FROM "${db.schema}".mmmq_outbox WHERE message_id = 'traced-1'`);
    expect(rows).toEqual([{ traceparent }]);

    relay = testRelay(db, broker.url);
    expect(await relay.relayOnce()).toMatchObject({ published: 1 });

    const [stored] = await broker.stored('traced.order');
    expect(stored.headers[OUTBOX_HEADERS.traceparent]).toBe(traceparent);
    const [send] = await tracing.waitForSpans('send traced.order');
    // The relay's span is not the creation context (the writer's is): a client span of its own trace, linked to it.
    expect(send.kind).toBe(SpanKind.CLIENT);
    expect(send.links.map((link) => link.context.spanId)).toEqual([writer.spanId]);
  });
});
