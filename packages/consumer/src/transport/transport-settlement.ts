import {
  isTransactionalSubscriber,
  type MmmqTransport,
  type TransportDelivery,
  type TransportListener,
  type TransportSubscriber,
} from '@mmmq/core';
import type { SettlementChannel } from '../handling/settlement';

/**
 * How `context.transaction()` and `inProgress()` reach a transport: leases and broker transactions are the MMMQ
 * broker's, so both fail naming the transport, unless its subscriber can commit a transaction (the in-memory one).
 */
export function transportSettlement(
  transport: MmmqTransport,
  subscriber: TransportSubscriber,
  listener: TransportListener,
  delivery: TransportDelivery,
): SettlementChannel {
  const extendUnavailable = `the ${transport.name} transport has no leases to extend (inProgress() needs the MMMQ broker)`;
  if (isTransactionalSubscriber(subscriber)) {
    return { extendUnavailable, commit: (outputs) => subscriber.commitTransaction(listener, delivery, outputs) };
  }
  return {
    extendUnavailable,
    commitUnavailable:
      `the ${transport.name} transport cannot publish outputs in one commit with the message's settlement ` +
      '(transaction() needs the MMMQ broker; publish with the Producer instead)',
  };
}
