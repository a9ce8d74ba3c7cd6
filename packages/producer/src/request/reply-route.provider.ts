import { InProcessBrokerTransport } from '@mmmq/core';
import { InMemoryTransport } from '@mmmq/core/testing';
import type { Provider } from '@nestjs/common';
import { isStreamUrl, RESOLVED_PRODUCER_OPTIONS, ResolvedProducerOptions } from '../mmmq-producer-options.resolver';
import { REPLY_ROUTE, ReplyRoute } from './reply-route';

/** Where the producer publishes decides how its replies come back (the same choice as its transport's). */
export function replyRouteOf(
  options: ResolvedProducerOptions,
  inMemory?: InMemoryTransport,
  inProcess?: InProcessBrokerTransport,
): ReplyRoute {
  if (inMemory !== undefined) return { kind: 'local' };
  const { transport, broker } = options;
  if (transport !== undefined) {
    if (transport instanceof InMemoryTransport) return { kind: 'local' };
    return { kind: 'unavailable', reason: `the ${transport.name} transport (the transport option) carries no replies` };
  }
  if (broker === undefined) return inProcess !== undefined ? { kind: 'local' } : { kind: 'unavailable', reason: 'there is no broker' };
  if (isStreamUrl(broker)) {
    return {
      kind: 'unavailable',
      reason: `replies are collected over HTTP, and broker is the publish stream (${broker}); use the broker's http:// URL`,
    };
  }
  return { kind: 'http', broker, access: { token: options.token, tls: options.tls } };
}

export const REPLY_ROUTE_PROVIDER: Provider = {
  provide: REPLY_ROUTE,
  useFactory: replyRouteOf,
  inject: [RESOLVED_PRODUCER_OPTIONS, { token: InMemoryTransport, optional: true }, { token: InProcessBrokerTransport, optional: true }],
};
