import { activeTracing, injectTraceContext, TRACE_HEADERS } from '@mmmq/core/internal';
import type { OutboxAddOptions } from './outbox-message';

const TRACER_NAME = '@mmmq/postgres';

/**
 * `options` with the trace context of the span active while the row is written, when the application traces and the
 * caller gave no `traceparent` of its own: the relay publishes it as the message's creation context, so the consumers'
 * spans join the trace of the transaction that wrote the row. Unchanged when tracing is off.
 */
export function withActiveTraceContext(options: OutboxAddOptions): OutboxAddOptions {
  if (options.traceparent !== undefined || options.tracestate !== undefined) return options;
  const tracing = activeTracing(TRACER_NAME);
  if (tracing === undefined) return options;
  const headers = injectTraceContext(tracing.api, tracing.api.context.active(), undefined);
  const traceparent = headers?.[TRACE_HEADERS.traceparent];
  if (typeof traceparent !== 'string') return options;
  const tracestate = headers?.[TRACE_HEADERS.tracestate];
  return { ...options, traceparent, ...(typeof tracestate === 'string' ? { tracestate } : {}) };
}
