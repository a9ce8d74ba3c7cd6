import type { BrokerEvents } from '../events/broker-events';
import type { BacklogGuard } from '../publish/backlog-guard';
import type { ScheduledCancellations } from '../publish/scheduled-cancellations';
import type { TopicPolicies } from '../topics/topic-policies';
import type { DeadLetterWriter } from './dead-letter-writer';
import type { ResolvedDeliveryOptions } from './delivery.options';
import type { DeliveryObserver } from './delivery-observer';
import type { PushSender } from './push-sender';
import type { WindowBudget } from './ledger/window-budget';

/** What a subscription needs besides its topic, consumer and checkpoint. */
export interface DeliveryContext {
  sender: PushSender;
  deadLetters: DeadLetterWriter;
  options: ResolvedDeliveryOptions;
  /** Where push members report stalls. */
  events: BrokerEvents;
  /** Each topic's `expiry.whenExpired`; absent where a test builds the context: expired messages are dead-lettered. */
  policies?: TopicPolicies;
  /** Where subscriptions with `backlogOverflow: 'reject'` make publishes wait; absent where tests build a context. */
  backlogGuard?: BacklogGuard;
  /**
   * Cancellations of scheduled messages, consulted before a due one is handed out; absent where tests build a
   * context: only the cancellation records a subscription has read count.
   */
  cancellations?: ScheduledCancellations;
  /** Bounds the message bytes subscriptions hold (`memory` options); absent where tests build a context: only counts bound. */
  windows?: WindowBudget;
  /** Push latencies and backoffs, for the metrics; absent while they are off. */
  observer?: DeliveryObserver;
}
