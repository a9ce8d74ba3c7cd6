import type { DeliveryRequest } from '@mmmq/core';

/** A delivery as this consumer handles it, pushed or pulled; its `lease` is only ever sent back to the broker. */
export type ConsumerDelivery = DeliveryRequest;
