import { describeValue } from '../errors/describe-value';
import { MmmqTransport } from './transport';

/**
 * What is wrong with a module's `transport` option, or undefined when nothing is: it must be an `MmmqTransport`, and
 * none of the MMMQ broker's own options (`brokerOnly`) may be set beside it, since they would be ignored — a leftover
 * is refused rather than silently kept. The producer and the consumer throw it as their options error.
 */
export function explainInvalidTransportOption<T extends { transport?: unknown }>(
  options: T,
  brokerOnly: readonly (keyof T)[],
): string | undefined {
  const { transport } = options;
  if (transport === undefined) return undefined;
  if (!(transport instanceof MmmqTransport)) {
    return `transport must be an MmmqTransport, such as new RabbitMqTransport({ url }) of @mmmq/rabbitmq, got ${describeValue(transport)}`;
  }
  const refused = brokerOnly.filter((name) => options[name] !== undefined).map(String);
  if (refused.length === 0) return undefined;
  return (
    `${refused.join(', ')} ${refused.length === 1 ? 'is an option' : 'are options'} of the MMMQ broker, but transport ` +
    `is set (${transport.name}); remove ${refused.length === 1 ? 'it' : 'them'}`
  );
}
