import { MmmqError } from '@mmmq/core';

/**
 * The consumer cannot take a delivery now and answers 503 with `Retry-After`; the broker keeps the message and
 * sends it again after a backoff, so nothing is lost and nothing is acknowledged.
 */
export class DeliveryRefusedError extends MmmqError {}
