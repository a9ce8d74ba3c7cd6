import { explainInvalidTransportOption, type MmmqTransport } from '@mmmq/core';
import { InvalidConsumerOptionsError } from '../errors/invalid-consumer-options.error';
import type { MmmqConsumerOptions } from '../config/mmmq-consumer.options';

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
  const problem = explainInvalidTransportOption(options, BROKER_ONLY_CONSUMER_OPTIONS);
  if (problem !== undefined) throw new InvalidConsumerOptionsError(problem);
  return options.transport;
}
