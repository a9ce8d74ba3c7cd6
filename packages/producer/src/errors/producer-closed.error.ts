import { listTopics, ProduceError, Publication } from './produce.error';

/**
 * `produce()`, `produceBatch()` or `transaction()` was called after the producer closed (the application is
 * shutting down), or a transaction's callback returned after it closed; nothing was sent.
 */
export class ProducerClosedError extends ProduceError {
  constructor(failure: Publication) {
    const what = failure.topics.length === 0 ? 'a transaction' : `to ${listTopics(failure.topics)}`;
    super(`Cannot publish ${what}: the producer is closed because the application is shutting down. Nothing was sent.`, {
      ...failure,
      attempts: 0,
    });
  }
}
