import { MmmqError } from '@mmmq/core';

/** A RabbitMQ node or cluster of a test could not be found, started, asked or formed (the message says which). */
export class RabbitMqTestNodeError extends MmmqError {}
