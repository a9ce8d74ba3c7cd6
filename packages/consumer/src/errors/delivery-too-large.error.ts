import { InvalidDeliveryError } from './invalid-delivery.error';

/** A delivery body is larger than `maxBodyBytes`; it is answered with 413 and the broker retries with backoff. */
export class DeliveryTooLargeError extends InvalidDeliveryError {}
