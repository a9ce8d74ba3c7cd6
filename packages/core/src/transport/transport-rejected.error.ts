import { MmmqError } from '../errors/mmmq-error';

/**
 * The transport's other side refused a message for good (e.g. RabbitMQ returned it as unroutable to a producer that
 * asked for that): sending it again with the same id cannot help, so the producer does not retry it.
 */
export class TransportRejectedError extends MmmqError {}
