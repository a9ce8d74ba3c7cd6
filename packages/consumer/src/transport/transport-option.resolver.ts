import { MmmqTransport } from '@mmmq/core';
import { InvalidConsumerOptionsError } from '../errors/invalid-consumer-options.error';
import type { MmmqConsumerOptions } from '../mmmq-consumer.options';
import { describe } from '../option-checks';

/** Options that only concern the MMMQ broker (registration, pushes, pulls): refused with another transport. */
export const BROKER_ONLY_CONSUMER_OPTIONS: readonly (keyof MmmqConsumerOptions)[] = [
  'broker',
  'advertisedUrl',
  'token',
  'tls',
  'autoRegister',
  'delivery',
  'pull',
  'registration',
  'signingSecrets',
  'signatureToleranceSeconds',
  'deliveryBatchSize',
  'deliveryMaxInFlight',
  'maxBodyBytes',
];

/**
 * The `transport` option, checked: an `MmmqTransport`, and none of the MMMQ broker's own options beside it (they
 * would be ignored, so a leftover is refused rather than silently kept).
 * @throws InvalidConsumerOptionsError naming the options
 */
export function resolveTransport(options: MmmqConsumerOptions): MmmqTransport | undefined {
  const { transport } = options;
  if (transport === undefined) return undefined;
  if (!(transport instanceof MmmqTransport)) {
    throw new InvalidConsumerOptionsError(
      `transport must be an MmmqTransport, such as new RabbitMqTransport({ url }) of @mmmq/rabbitmq, got ${describe(transport)}`,
    );
  }
  const refused = BROKER_ONLY_CONSUMER_OPTIONS.filter((name) => options[name] !== undefined);
  if (refused.length > 0) {
    throw new InvalidConsumerOptionsError(
      `${refused.join(', ')} ${refused.length === 1 ? 'is an option' : 'are options'} of the MMMQ broker, but transport ` +
        `is set (${transport.name}); remove ${refused.length === 1 ? 'it' : 'them'}`,
    );
  }
  return transport;
}
