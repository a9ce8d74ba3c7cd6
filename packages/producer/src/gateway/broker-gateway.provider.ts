import { InMemoryTransport } from '@mmmq/core/testing';
import type { Provider } from '@nestjs/common';
import { isStreamUrl, RESOLVED_PRODUCER_OPTIONS, ResolvedProducerOptions } from '../mmmq-producer-options.resolver';
import { BrokerGateway } from './broker-gateway';
import { HttpBrokerGateway } from './http-broker-gateway';
import { StreamBrokerGateway } from './stream-broker-gateway';
import { TransportGateway } from './transport-gateway';

/** The in-memory transport of tests when there is one, else the `transport` option, else the broker's stream or HTTP API. */
export function createBrokerGateway(options: ResolvedProducerOptions, inMemory?: InMemoryTransport): BrokerGateway {
  const transport = inMemory ?? options.transport;
  if (transport !== undefined) return new TransportGateway(transport, options.timeoutMs);
  // resolveProducerOptions already refused a missing `broker` when there is no transport.
  const broker = options.broker as string;
  const access = { token: options.token, tls: options.tls };
  if (isStreamUrl(broker)) return new StreamBrokerGateway(broker, options.timeoutMs, access);
  return new HttpBrokerGateway(broker, options.timeoutMs, access);
}

/** The in-memory transport of `MmmqTestingModule` when one is injectable, else as the options say. */
export const BROKER_GATEWAY_PROVIDER: Provider = {
  provide: BrokerGateway,
  useFactory: (options: ResolvedProducerOptions, inMemory: InMemoryTransport | undefined) => createBrokerGateway(options, inMemory),
  inject: [RESOLVED_PRODUCER_OPTIONS, { token: InMemoryTransport, optional: true }],
};
