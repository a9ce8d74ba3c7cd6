import { MmmqError } from '@mmmq/core';

/**
 * The caller's abort signal (the producer's `timeoutMs`) fired before the messages were handed to RabbitMQ: nothing
 * was sent. The producer has reported the attempt as failed already and retries it with the same id.
 */
export class PublishAbandonedError extends MmmqError {}
