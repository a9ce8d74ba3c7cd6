/**
 * Building blocks for MMMQ's own integrations (`@mmmq/microservices`), outside Nest's dependency injection. Not a
 * public API: it may change in any release. Applications use `MmmqProducerModule` and `Producer`.
 */
import type { InMemoryTransport } from '@mmmq/core/testing';
import { createTransportGateway } from './gateway/transport-gateway.provider';
import { resolveProducerOptions } from './mmmq-producer-options.resolver';
import type { MmmqProducerOptions } from './mmmq-producer.options';
import { Producer } from './producer';

/**
 * A producer built from options as `MmmqProducerModule.forRoot(options)` would build it; invalid options throw
 * `InvalidProducerOptionsError` naming the option. The caller closes it (`producer.close()`).
 */
export function createProducer(options: MmmqProducerOptions, inMemory?: InMemoryTransport): Producer {
  const resolved = resolveProducerOptions(options, inMemory !== undefined && 'in-memory');
  return new Producer(createTransportGateway(resolved, inMemory), resolved);
}
