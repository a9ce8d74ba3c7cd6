/**
 * The W3C headers that carry a message's trace context (its creation context) from the producer to every consumer,
 * written by the OpenTelemetry propagators the application registers. The broker stores and delivers them untouched,
 * as any header.
 */
export const TRACE_HEADERS = {
  /** W3C Trace Context: `00-{trace id}-{span id}-{flags}`. */
  traceparent: 'traceparent',
  /** W3C Trace Context: vendor-specific state, with `traceparent`. */
  tracestate: 'tracestate',
  /** W3C Baggage: application key-value pairs travelling with the trace. */
  baggage: 'baggage',
} as const;

export type TraceHeaderName = (typeof TRACE_HEADERS)[keyof typeof TRACE_HEADERS];
