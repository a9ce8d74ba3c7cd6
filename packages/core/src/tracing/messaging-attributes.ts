/** `messaging.system` of every MMMQ span. */
export const MESSAGING_SYSTEM = 'mmmq';

/**
 * Span attribute names: the OpenTelemetry messaging semantic conventions, and MMMQ's own under `messaging.mmmq.`
 * (the namespace the conventions give a system's own attributes).
 */
export const MessagingAttributes = {
  SYSTEM: 'messaging.system',
  OPERATION_NAME: 'messaging.operation.name',
  OPERATION_TYPE: 'messaging.operation.type',
  DESTINATION_NAME: 'messaging.destination.name',
  CONSUMER_GROUP_NAME: 'messaging.consumer.group.name',
  MESSAGE_ID: 'messaging.message.id',
  BATCH_MESSAGE_COUNT: 'messaging.batch.message_count',
  ERROR_TYPE: 'error.type',
  /** How many times the broker has delivered the message to this consumer id, this delivery included. */
  DELIVERY_COUNT: 'messaging.mmmq.message.delivery_count',
  /** The message's offset in its topic. */
  OFFSET: 'messaging.mmmq.message.offset',
  /** What became of the delivery: `ack`, `nack` (delivered again), `dead_letter`, or `dropped` (ack mode `none`). */
  OUTCOME: 'messaging.mmmq.outcome',
} as const;
