import { InMemoryBroker } from '@mmmq/core/testing';
import type { Provider } from '@nestjs/common';
import { isStreamUrl, RESOLVED_PRODUCER_OPTIONS, ResolvedProducerOptions } from '../mmmq-producer-options.resolver';
import { BrokerGateway } from './broker-gateway';
import { HttpBrokerGateway } from './http-broker-gateway';
import { InMemoryBrokerGateway } from './in-memory-broker-gateway';
import { StreamBrokerGateway } from './stream-broker-gateway';

/** The in-memory broker when there is one, else the broker's stream or HTTP API. */
export function createBrokerGateway(options: ResolvedProducerOptions, inMemory?: InMemoryBroker): BrokerGateway {
  if (inMemory !== undefined) return new InMemoryBrokerGateway(inMemory);
  // resolveProducerOptions already refused a missing `broker` when there is no in-memory broker.
  const broker = options.broker as string;
  const access = { token: options.token, tls: options.tls };
  if (isStreamUrl(broker)) return new StreamBrokerGateway(broker, options.timeoutMs, access);
  return new HttpBrokerGateway(broker, options.timeoutMs, access);
}

/** The in-memory broker of `MmmqTestingModule` when one is injectable, else the broker's stream or HTTP API. */
export const BROKER_GATEWAY_PROVIDER: Provider = {
  provide: BrokerGateway,
  useFactory: (options: ResolvedProducerOptions, inMemory: InMemoryBroker | undefined) => createBrokerGateway(options, inMemory),
  inject: [RESOLVED_PRODUCER_OPTIONS, { token: InMemoryBroker, optional: true }],
};
