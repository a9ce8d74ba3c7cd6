import { DeliveryRefusedError } from './delivery-refused.error';

/**
 * The application is shutting down: the delivery arrived after shutdown began, or was still waiting for a worker.
 * No handler saw it; it is not acknowledged, so the broker redelivers it (see also HandlerAbandonedError).
 */
export class ConsumerClosingError extends DeliveryRefusedError {}
