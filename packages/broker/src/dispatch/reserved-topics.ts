/** Dead letters of a consumer are kept in this reserved topic. */
export const DEAD_LETTER_TOPIC_PREFIX = '__dlq.';
/** Dead letters handed back to a consumer are queued in this reserved topic, delivered only to that consumer. */
export const REDRIVE_TOPIC_PREFIX = '__redrive.';

export function deadLetterTopicOf(consumerId: string): string {
  return DEAD_LETTER_TOPIC_PREFIX + consumerId;
}

export function redriveTopicOf(consumerId: string): string {
  return REDRIVE_TOPIC_PREFIX + consumerId;
}
