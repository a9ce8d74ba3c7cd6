import { DeliveryRefusedError } from './delivery-refused.error';

/**
 * A push for a listener of this application that is not subscribed yet (start-up is still subscribing the listeners
 * one after another): refused with 503, so the broker sends it again later instead of counting a failed delivery.
 */
export class ListenerNotSubscribedError extends DeliveryRefusedError {}
