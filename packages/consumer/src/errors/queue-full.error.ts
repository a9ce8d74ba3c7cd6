import { DeliveryRefusedError } from './delivery-refused.error';

/** Every worker is busy and `queueSize` messages already wait; the delivery is refused rather than held. */
export class QueueFullError extends DeliveryRefusedError {}
