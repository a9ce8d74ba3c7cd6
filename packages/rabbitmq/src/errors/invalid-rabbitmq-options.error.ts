import { MmmqError } from '@mmmq/core';

/** A `RabbitMqTransport` option is missing, unknown or out of range; thrown by the constructor, naming the option. */
export class InvalidRabbitMqOptionsError extends MmmqError {}
