import { InProcessBrokerTransport } from '@mmmq/core';
import { InMemoryTransport } from '@mmmq/core/testing';
import type { Provider } from '@nestjs/common';
import { isStreamUrl, RESOLVED_PRODUCER_OPTIONS, ResolvedProducerOptions } from '../mmmq-producer-options.resolver';
import { HttpBrokerPublisher } from './http-broker-publisher';
import { StreamBrokerPublisher } from './stream-broker-publisher';
import { TransportGateway } from './transport-gateway';

/** The MMMQ broker's name as a transport, in error messages. */
const MMMQ_TRANSPORT_NAME = 'mmmq';

/**
 * The in-memory transport of tests when there is one, else the `transport` option, else this application's own
 * broker in process when it has one and `broker` is not set, else the MMMQ broker's publisher at `broker` (its
 * stream or HTTP API): one gateway either way.
 */
export function createTransportGateway(
  options: ResolvedProducerOptions,
  inMemory?: InMemoryTransport,
  inProcess?: InProcessBrokerTransport,
): TransportGateway {
  const transport = inMemory ?? options.transport ?? (options.broker === undefined ? inProcess : undefined);
  if (transport !== undefined) return TransportGateway.of(transport, options.timeoutMs);
  // resolveProducerOptions already refused a missing `broker` when there is no transport.
  const broker = options.broker as string;
  const access = { token: options.token, tls: options.tls };
  const publisher = isStreamUrl(broker)
    ? new StreamBrokerPublisher(broker, options.timeoutMs, access)
    : new HttpBrokerPublisher(broker, options.timeoutMs, access);
  return new TransportGateway(publisher, MMMQ_TRANSPORT_NAME, { kind: 'publisher' });
}

/** The in-memory transport of `MmmqTestingModule` or the application's own broker when one is injectable, else as the options say. */
export const TRANSPORT_GATEWAY_PROVIDER: Provider = {
  provide: TransportGateway,
  useFactory: (options: ResolvedProducerOptions, inMemory?: InMemoryTransport, inProcess?: InProcessBrokerTransport) =>
    createTransportGateway(options, inMemory, inProcess),
  inject: [RESOLVED_PRODUCER_OPTIONS, { token: InMemoryTransport, optional: true }, { token: InProcessBrokerTransport, optional: true }],
};
