import { activeTracing, extractTraceContext, MESSAGING_SYSTEM, MessagingAttributes, type OpenTelemetry } from '@mmmq/core/internal';
import type { Attributes, Span } from '@opentelemetry/api';
import type { ListenerDefinition } from '../listener/listener-definition';
import type { ConsumerDelivery } from '../listener/consumer-delivery';
import type { ConsumerReply } from '../listener/settlement';

const TRACER_NAME = '@mmmq/consumer';

/** What became of a delivery, as the `messaging.mmmq.outcome` attribute says it. */
export type ProcessOutcome = 'ack' | 'nack' | 'dead_letter' | 'dropped';

/**
 * Runs `handle` (one listener on one delivery) inside a `process` span whose parent is the message's creation
 * context — the producer's `send` span, read from the W3C headers — and which links to it as well, as the messaging
 * conventions ask of every process span. The span ends with the outcome and the delivery count. Without a
 * registered tracer provider it only calls `handle`.
 */
export function traceProcess<T extends { reply: ConsumerReply }>(
  listener: ListenerDefinition,
  delivery: ConsumerDelivery,
  handle: () => Promise<T>,
): Promise<T> {
  const tracing = activeTracing(TRACER_NAME);
  if (tracing === undefined) return handle();
  const { api, tracer } = tracing;
  const creation = extractTraceContext(api, delivery.headers);
  const creationSpan = api.trace.getSpanContext(creation);
  const linked = creationSpan !== undefined && api.isSpanContextValid(creationSpan);
  // Without a creation context (a message from a producer that does not trace), the span continues what is active.
  const parent = linked ? creation : api.context.active();
  const span = tracer.startSpan(
    `process ${delivery.topic}`,
    { kind: api.SpanKind.CONSUMER, attributes: processAttributes(listener, delivery), links: linked ? [{ context: creationSpan }] : [] },
    parent,
  );
  return api.context.with(api.trace.setSpan(parent, span), handle).then(
    (outcome) => {
      ended(api, span, outcomeOf(listener, delivery, outcome.reply), outcome.reply.message);
      return outcome;
    },
    (error: unknown) => {
      // The invoker never throws; should it, the span still ends.
      ended(api, span, 'nack', error instanceof Error ? error.message : String(error));
      throw error;
    },
  );
}

function processAttributes(listener: ListenerDefinition, delivery: ConsumerDelivery): Attributes {
  return {
    [MessagingAttributes.SYSTEM]: MESSAGING_SYSTEM,
    [MessagingAttributes.OPERATION_NAME]: 'process',
    [MessagingAttributes.OPERATION_TYPE]: 'process',
    [MessagingAttributes.DESTINATION_NAME]: delivery.topic,
    [MessagingAttributes.CONSUMER_GROUP_NAME]: listener.consumerId,
    [MessagingAttributes.MESSAGE_ID]: delivery.id,
    [MessagingAttributes.DELIVERY_COUNT]: delivery.deliveryCount,
    [MessagingAttributes.OFFSET]: delivery.offset,
  };
}

/** A NACK without retry, or on the broker's last attempt, is dead-lettered; with ack mode `none` nothing is redelivered. */
export function outcomeOf(listener: ListenerDefinition, delivery: ConsumerDelivery, reply: ConsumerReply): ProcessOutcome {
  if (reply.acknowledgement === 'ACK') return 'ack';
  if (listener.ackMode === 'none') return 'dropped';
  return reply.retry === false || delivery.lastAttempt === true ? 'dead_letter' : 'nack';
}

function ended(api: OpenTelemetry, span: Span, outcome: ProcessOutcome, message: string | undefined): void {
  span.setAttribute(MessagingAttributes.OUTCOME, outcome);
  if (outcome !== 'ack') {
    span.setAttribute(MessagingAttributes.ERROR_TYPE, outcome);
    span.setStatus({ code: api.SpanStatusCode.ERROR, ...(message === undefined ? {} : { message }) });
  }
  span.end();
}
