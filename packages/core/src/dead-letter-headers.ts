/**
 * Headers a dead letter carries besides the original message's own, on every transport (the MMMQ broker's
 * `__dlq.{consumerId}` topics, RabbitMQ's dead-letter queues): one contract for tools that read dead letters.
 */
export const DeadLetterHeaders = {
  ORIGINAL_TOPIC: 'mmmq-dlq-original-topic',
  ORIGINAL_OFFSET: 'mmmq-dlq-original-offset',
  ORIGINAL_ID: 'mmmq-dlq-original-id',
  CONSUMER_ID: 'mmmq-dlq-consumer-id',
  ATTEMPTS: 'mmmq-dlq-attempts',
  REASON: 'mmmq-dlq-reason',
  LAST_ERROR: 'mmmq-dlq-last-error',
  FAILED_AT: 'mmmq-dlq-failed-at',
  /** JSON: the latest deliveries, `[{"member","at","outcome"}]`. */
  DELIVERIES: 'mmmq-dlq-deliveries',
} as const;
