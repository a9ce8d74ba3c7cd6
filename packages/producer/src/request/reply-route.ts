import type { BrokerAccess } from '../gateway/broker-access';

/**
 * How replies reach this producer: `local`, handed over in this process (the broker of this application relays
 * remote listeners' replies into it; the in-memory transport's listeners are in this process); `http`, also
 * collected from the broker's relay at `broker`; `unavailable`, not at all, for `reason`.
 */
export type ReplyRoute =
  { kind: 'local' } | { kind: 'http'; broker: string; access: BrokerAccess } | { kind: 'unavailable'; reason: string };

/** The injection token of the producer's {@link ReplyRoute}. */
export const REPLY_ROUTE = Symbol('MMMQ_REPLY_ROUTE');
