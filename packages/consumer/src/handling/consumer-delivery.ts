import type { DeliveryRequest } from '@mmmq/core';

/**
 * A delivery as this consumer handles it: pushed or pulled, with the broker's lease token when the broker
 * sends one (issue 12). The token is opaque: it is only ever sent back to the broker.
 */
export interface ConsumerDelivery extends DeliveryRequest {
  lease?: string;
}
