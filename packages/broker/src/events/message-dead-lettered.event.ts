/** Payload of `mmmq.message.dead-lettered`. */
export interface MessageDeadLetteredEvent {
  consumerId: string;
  /** Where the message was published, and its offset there. */
  topic: string;
  offset: number;
  /** The producer's id (or the one the broker assigned); null for entries written by the original Java broker. */
  id: string | null;
  /**
   * `NACK` (retries used up), `MAX_DELIVERIES`, `REJECTED` (a NACK with `retry: false`), `TERMINATED` (pull),
   * `TOO_LARGE` (a push of it alone answered 413), `EXPIRED` or `BACKLOG_LIMIT`.
   */
  reason: string;
  /** Deliveries that may have reached a handler. */
  attempts: number;
  lastError: string;
  /** The dead-letter topic (`__dlq.{consumerId}`) and the dead letter's offset in it. */
  deadLetterTopic: string;
  deadLetterOffset: number;
}
