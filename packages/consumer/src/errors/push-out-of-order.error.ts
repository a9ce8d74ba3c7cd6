import { DeliveryRefusedError } from './delivery-refused.error';

/**
 * A push of a session could not be handled in its place in the sequence: the push before it failed or never
 * arrived, or a newer session replaced its own. Refused with 503, so the broker resends it in order.
 */
export class PushOutOfOrderError extends DeliveryRefusedError {}
