import type { TransportListener } from '@mmmq/core';
import type { ListenerDefinition } from '../listener/listener-definition';

/** What a transport is told of a listener. */
export function toTransportListener(listener: ListenerDefinition): TransportListener {
  return {
    consumerId: listener.consumerId,
    pattern: listener.pattern.value,
    concurrency: listener.concurrency,
    ackMode: listener.ackMode,
    ...(listener.startFrom === undefined ? {} : { startFrom: listener.startFrom }),
    ...(listener.selector === undefined ? {} : { selector: listener.selector }),
    ...(listener.backlogLimit === undefined ? {} : { backlogLimit: listener.backlogLimit }),
    ...(listener.maxActiveMembers === undefined ? {} : { maxActiveMembers: listener.maxActiveMembers }),
    ...(listener.maxMembers === undefined ? {} : { maxMembers: listener.maxMembers }),
    ...(listener.ordered === false ? { ordered: false as const } : {}),
  };
}
