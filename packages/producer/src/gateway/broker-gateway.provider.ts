import { InMemoryBroker } from '@mmmq/core';
import type { Provider } from '@nestjs/common';
import { RESOLVED_PRODUCER_OPTIONS, ResolvedProducerOptions } from '../mmmq-producer-options.resolver';
import { BrokerGateway } from './broker-gateway';
import { HttpBrokerGateway } from './http-broker-gateway';
import { InMemoryBrokerGateway } from './in-memory-broker-gateway';

/** The in-memory broker of `MmmqTestingModule` when one is injectable, the HTTP broker otherwise. */
export const BROKER_GATEWAY_PROVIDER: Provider = {
  provide: BrokerGateway,
  useFactory: (options: ResolvedProducerOptions, inMemory: InMemoryBroker | undefined): BrokerGateway => {
    if (inMemory !== undefined) return new InMemoryBrokerGateway(inMemory);
    // resolveProducerOptions already refused a missing `broker` when there is no in-memory broker.
    return new HttpBrokerGateway(options.broker as string, options.timeoutMs);
  },
  inject: [RESOLVED_PRODUCER_OPTIONS, { token: InMemoryBroker, optional: true }],
};
