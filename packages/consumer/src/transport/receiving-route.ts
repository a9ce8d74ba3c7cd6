import type { InProcessBrokerTransport } from '@mmmq/core';
import type { InMemoryTransport } from '@mmmq/core/testing';
import type { ResolvedConsumerOptions } from '../config/resolved-consumer-options';

/**
 * Where the listeners receive from: the in-memory transport of `MmmqTestingModule` (which wins), the `transport`
 * option, this application's own broker in process (it imports `MmmqBrokerModule` and `broker` is not set), or the
 * MMMQ broker at `broker` over HTTP.
 */
export type ReceivingRoute = 'in-memory' | 'transport' | 'in-process' | 'broker';

export function receivingRoute(
  options: ResolvedConsumerOptions,
  inMemory: InMemoryTransport | undefined,
  inProcess: InProcessBrokerTransport | undefined,
): ReceivingRoute {
  if (inMemory !== undefined) return 'in-memory';
  if (options.transport !== undefined) return 'transport';
  return inProcess !== undefined && options.broker === undefined ? 'in-process' : 'broker';
}
