import {
  isLeasingSubscriber,
  isTransactionalSubscriber,
  type TransportDelivery,
  type TransportListener,
  type TransportSubscriber,
} from '@mmmq/core';
import { replyFor, type SettlementChannel } from '../listener/settlement';

/**
 * How `context.inProgress()`, `context.transaction()` and a `manual` decision reach a listener's transport, per
 * delivery, by what its subscriber offers: leases (`LeasingSubscriber`: extension, and a `manual` decision sent
 * before the handler returns where it settles at once) and transactions (`TransactionalSubscriber`). What it does not
 * offer fails naming the transport. Worked out once per listener; per delivery it costs what it must capture.
 */
export function settlementChannels(
  transportName: string,
  subscriber: TransportSubscriber,
  listener: TransportListener,
): (delivery: TransportDelivery) => SettlementChannel {
  const extendUnavailable = `the ${transportName} transport has no leases to extend (inProgress() needs the MMMQ broker)`;
  const commitUnavailable =
    `the ${transportName} transport cannot publish outputs in one commit with the message's settlement ` +
    '(transaction() needs the MMMQ broker; publish with the Producer instead)';
  const transactional = isTransactionalSubscriber(subscriber) ? subscriber : undefined;
  if (isLeasingSubscriber(subscriber)) {
    const settleNow = listener.ackMode === 'manual' ? subscriber.settleNow?.bind(subscriber) : undefined;
    return (delivery) => {
      const why = subscriber.leaseUnavailable(listener, delivery);
      if (why !== undefined) return { extendUnavailable: why, commitUnavailable: why };
      const channel: SettlementChannel = { extend: () => subscriber.extendLease(listener, delivery) };
      if (transactional) channel.commit = (outputs) => transactional.commitTransaction(listener, delivery, outputs);
      else channel.commitUnavailable = commitUnavailable;
      if (settleNow) channel.settle = (decision) => settleNow(listener, delivery, replyFor(decision));
      return channel;
    };
  }
  if (transactional) {
    return (delivery) => ({ extendUnavailable, commit: (outputs) => transactional.commitTransaction(listener, delivery, outputs) });
  }
  const unavailable: SettlementChannel = { extendUnavailable, commitUnavailable };
  return () => unavailable;
}
