import { DeliveryRefusedError } from './delivery-refused.error';

/**
 * The application is shutting down: the delivery arrived after shutdown began, was still waiting for a worker,
 * or its handler did not finish within `shutdownTimeoutMs`. It is not acknowledged, so the broker redelivers it.
 */
export class ConsumerClosingError extends DeliveryRefusedError {}
