import { MessageContext, MMMQListener } from '@mmmq/consumer';
import { activeSpanId, InMemoryTracing, startInMemoryTracing } from '@mmmq/test-support';
import { Injectable } from '@nestjs/common';
import { ConformanceHarness } from '../support/harness';
import { uniqueNames } from '../support/names';
import { TRANSPORTS } from '../support/transports';

function tracedListener(pattern: string, consumerId: string, seen: Array<{ traceparent: unknown; spanId: string | undefined }>) {
  @Injectable()
  class OrderListener {
    @MMMQListener(pattern, { consumerId })
    onOrder(_content: unknown, context: MessageContext): void {
      seen.push({ traceparent: context.headers.traceparent, spanId: activeSpanId() });
    }
  }
  return OrderListener;
}

describe.each(TRANSPORTS)('trace context on $name', (transport) => {
  let tracing: InMemoryTracing;
  let harness: ConformanceHarness;

  beforeAll(async () => {
    tracing = startInMemoryTracing();
    harness = await ConformanceHarness.start(transport);
  });
  afterAll(async () => {
    await harness?.close();
    await tracing?.close();
  });

  it('carries the send span’s context in the headers to a handler that runs in a process span of the same trace', async () => {
    const names = uniqueNames();
    const topic = names.topic('order', 'placed');
    const seen: Array<{ traceparent: unknown; spanId: string | undefined }> = [];
    await harness.consumer(names.id, [tracedListener(names.topic('order', '*'), names.consumerId('billing'), seen)]);
    const producer = await harness.producer();

    await tracing.inSpan('POST /orders', () => producer.produce(topic, { n: 1 }));

    const [process] = await tracing.waitForSpans(`process ${topic}`);
    const [send] = tracing.spans().filter((span) => span.name === `send ${topic}`);
    const request = tracing.spans().find((span) => span.name === 'POST /orders')!;
    expect(send.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(process.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(process.parentSpanContext?.spanId).toBe(send.spanContext().spanId);
    expect(process.links.map((link) => link.context.spanId)).toEqual([send.spanContext().spanId]);
    expect(seen).toEqual([
      { traceparent: `00-${send.spanContext().traceId}-${send.spanContext().spanId}-01`, spanId: process.spanContext().spanId },
    ]);
  });
});
