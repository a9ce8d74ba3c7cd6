/** How messages reach the listeners: pushed by the broker to this application, or fetched by it. */
export type DeliveryMode = 'push' | 'pull';

/** Default {@link DeliveryMode}: the broker pushes to `advertisedUrl`. */
export const DEFAULT_DELIVERY_MODE: DeliveryMode = 'push';
