import { InProcessBrokerTransport } from '@mmmq/core';
import type { Provider } from '@nestjs/common';
import { MMMQ_CONSUMER_RESOLVED_OPTIONS, type ResolvedConsumerOptions } from '../config/resolved-consumer-options';
import { type ReplyRelayRoute, ReplySender } from './reply-sender';

/** Replies take the way the listeners' messages came: the broker in process, the broker at `broker`, or neither. */
export function replyRelayRouteOf(options: ResolvedConsumerOptions, inProcess?: InProcessBrokerTransport): ReplyRelayRoute {
  if (options.transport !== undefined) return { kind: 'none', reason: `the ${options.transport.name} transport carries no replies` };
  if (options.broker !== undefined) return { kind: 'http', access: options.broker };
  if (inProcess !== undefined) return { kind: 'in-process', broker: inProcess };
  return { kind: 'none', reason: 'the broker option is not set' };
}

export const REPLY_SENDER_PROVIDER: Provider = {
  provide: ReplySender,
  useFactory: (options: ResolvedConsumerOptions, inProcess?: InProcessBrokerTransport) =>
    new ReplySender(replyRelayRouteOf(options, inProcess)),
  inject: [MMMQ_CONSUMER_RESOLVED_OPTIONS, { token: InProcessBrokerTransport, optional: true }],
};
