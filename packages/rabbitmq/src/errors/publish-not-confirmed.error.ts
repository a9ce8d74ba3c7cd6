import { MmmqError } from '@mmmq/core';

/**
 * RabbitMQ did not confirm a publish: it refused it (a `basic.nack`, e.g. a full queue with `x-overflow:
 * reject-publish`), the channel closed before the confirm, or the confirm timed out. Retryable with the same id.
 */
export class PublishNotConfirmedError extends MmmqError {}
