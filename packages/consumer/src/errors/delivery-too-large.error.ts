import { InvalidDeliveryError } from './invalid-delivery.error';

/**
 * A delivery body is larger than `maxBodyBytes`; it is answered with 413, and the broker sends smaller batches or
 * dead-letters a message refused alone (`TOO_LARGE`).
 */
export class DeliveryTooLargeError extends InvalidDeliveryError {}
