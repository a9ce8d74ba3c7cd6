import { HEADER_VALUE_MAX_LENGTH, HEADERS_MAX_COUNT, MessageHeaders } from '@mmmq/core';
import { InMemoryTracing, startInMemoryTracing } from '@mmmq/test-support';
import { context, propagation, trace } from '@opentelemetry/api';
import { activeTracing, extractTraceContext, injectTraceContext } from '../../src/internal';

describe('trace context in message headers', () => {
  let tracing: InMemoryTracing;
  beforeAll(() => {
    tracing = startInMemoryTracing();
  });
  afterAll(() => tracing.close());

  const withSpan = (baggage: Record<string, string> = {}) => {
    const span = trace.getTracer('test').startSpan('create');
    const entries = Object.fromEntries(Object.entries(baggage).map(([key, value]) => [key, { value }]));
    return { span, ctx: propagation.setBaggage(trace.setSpan(context.active(), span), propagation.createBaggage(entries)) };
  };

  it('writes traceparent and baggage, and reads the same context back', () => {
    const { api } = activeTracing('test')!;
    const { span, ctx } = withSpan({ tenant: 'acme' });
    const headers = injectTraceContext(api, ctx, { orderId: 'o-1' })!;
    expect(headers).toEqual({
      orderId: 'o-1',
      traceparent: `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`,
      baggage: 'tenant=acme',
    });
    const read = extractTraceContext(api, headers);
    expect(trace.getSpanContext(read)).toMatchObject({ traceId: span.spanContext().traceId, spanId: span.spanContext().spanId });
    expect(propagation.getBaggage(read)?.getEntry('tenant')?.value).toBe('acme');
  });

  it('leaves out a value the broker would refuse, and a header past the count limit, instead of failing the publish', () => {
    const { api } = activeTracing('test')!;
    const { ctx } = withSpan({ big: 'x'.repeat(HEADER_VALUE_MAX_LENGTH) });
    const full: MessageHeaders = Object.fromEntries(Array.from({ length: HEADERS_MAX_COUNT }, (_, i) => [`h${i}`, i]));
    expect(Object.keys(injectTraceContext(api, ctx, { ...full })!)).toHaveLength(HEADERS_MAX_COUNT);
    const headers = injectTraceContext(api, ctx, {})!;
    expect(headers.traceparent).toEqual(expect.any(String));
    expect(headers.baggage).toBeUndefined();
  });

  it('adds no headers object when there is no context to write', () => {
    const { api } = activeTracing('test')!;
    expect(injectTraceContext(api, api.ROOT_CONTEXT, undefined)).toBeUndefined();
  });
});
