import { MmmqError } from '@mmmq/core';

/**
 * RabbitMQ could not be reached, or the connection dropped before an operation finished: the outcome is unknown or
 * nothing was sent, so a producer retries the publish with the same id.
 */
export class RabbitMqConnectionError extends MmmqError {}
