import { describeValue } from './errors/describe-value';
import { InvalidMessageError } from './errors/invalid-message-error';

/**
 * `persistent`: the broker acknowledges a publish once the message is durable (fsync'd), and answers with its
 * offset. `nonPersistent`: it acknowledges on receipt, before the message is durable and before it has an offset;
 * such a message may be lost if the broker crashes, never on a clean restart (docs/destinations.md#delivery-modes).
 */
export type DeliveryMode = 'persistent' | 'nonPersistent';
export const DELIVERY_MODES: readonly DeliveryMode[] = ['persistent', 'nonPersistent'];

/**
 * @returns `mode`, narrowed to a {@link DeliveryMode}
 * @throws InvalidMessageError naming the `deliveryMode` field
 */
export function assertDeliveryMode(mode: unknown): DeliveryMode {
  if (!DELIVERY_MODES.includes(mode as DeliveryMode)) {
    throw new InvalidMessageError(`Message field "deliveryMode" must be one of ${DELIVERY_MODES.join(', ')}, got ${describeValue(mode)}`);
  }
  return mode as DeliveryMode;
}
