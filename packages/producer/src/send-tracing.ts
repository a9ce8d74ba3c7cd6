import { activeTracing, extractTraceContext, injectTraceContext, MESSAGING_SYSTEM, MessagingAttributes } from '@mmmq/core/internal';
import type { Attributes, Link, Span } from '@opentelemetry/api';
import type { OutgoingMessage } from './outgoing-message';

const TRACER_NAME = '@mmmq/producer';

/**
 * Runs `send` (the publication of `messages`, retries included) inside a `send` span, once the messages carry their
 * creation context: the span's own, injected as W3C headers by the registered propagator, or the one a message already
 * carries (an outbox row's), which is kept and linked. Without a registered tracer provider it only calls `send`.
 * `messages` must be this producer's own copies: their headers are written in place.
 */
export function traceSend<T>(messages: OutgoingMessage[], send: () => Promise<T>): Promise<T> {
  const tracing = activeTracing(TRACER_NAME);
  if (tracing === undefined) return send();
  const { api, tracer } = tracing;
  const links: Link[] = [];
  const own: OutgoingMessage[] = [];
  for (const message of messages) {
    const carried = api.trace.getSpanContext(extractTraceContext(api, message.headers));
    if (carried !== undefined && api.isSpanContextValid(carried)) links.push({ context: carried });
    else own.push(message);
  }
  const topic = singleTopic(messages);
  const span = tracer.startSpan(topic === undefined ? 'send' : `send ${topic}`, {
    // PRODUCER when this span is a message's creation context; a plain client call when every message had its own.
    kind: own.length > 0 ? api.SpanKind.PRODUCER : api.SpanKind.CLIENT,
    attributes: sendAttributes(messages, topic),
    links,
  });
  const context = api.trace.setSpan(api.context.active(), span);
  for (const message of own) message.headers = injectTraceContext(api, context, message.headers);
  return api.context.with(context, send).then(
    (result) => {
      span.end();
      return result;
    },
    (error: unknown) => {
      failed(span, error, api.SpanStatusCode.ERROR);
      throw error;
    },
  );
}

function sendAttributes(messages: OutgoingMessage[], topic: string | undefined): Attributes {
  const attributes: Attributes = {
    [MessagingAttributes.SYSTEM]: MESSAGING_SYSTEM,
    [MessagingAttributes.OPERATION_NAME]: 'send',
    [MessagingAttributes.OPERATION_TYPE]: 'send',
  };
  if (topic !== undefined) attributes[MessagingAttributes.DESTINATION_NAME] = topic;
  // The conventions: a message id on single-message spans only, a count on batches only.
  if (messages.length === 1) attributes[MessagingAttributes.MESSAGE_ID] = messages[0].id;
  else attributes[MessagingAttributes.BATCH_MESSAGE_COUNT] = messages.length;
  return attributes;
}

/** The topic every message names, or undefined for a batch across topics. */
function singleTopic(messages: OutgoingMessage[]): string | undefined {
  const topic = messages[0]?.topic;
  return messages.every((message) => message.topic === topic) ? topic : undefined;
}

function failed(span: Span, error: unknown, status: number): void {
  span.setAttribute(MessagingAttributes.ERROR_TYPE, (error as Error)?.constructor?.name ?? 'Error');
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: status, message: error instanceof Error ? error.message : String(error) });
  span.end();
}
