/**
 * Building blocks MMMQ's own packages share (the producer's and the consumer's tracing; the AsyncAPI document of the
 * consumer, the producer, MmmqServer and the CLI). Not a public API: it may change in any release.
 */
export { activeTracing, type OpenTelemetry } from './tracing/opentelemetry';
export { extractTraceContext, injectTraceContext } from './tracing/message-trace-context';
export { MESSAGING_SYSTEM, MessagingAttributes } from './tracing/messaging-attributes';
export { TRACE_HEADERS } from './tracing/trace-headers';
export * from './asyncapi';
