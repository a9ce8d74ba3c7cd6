import type { DispatcherHostJoinedEvent, DispatcherHostLeftEvent } from './dispatcher-host.events';
import type { DispatcherRegisteredEvent, DispatcherRemovedEvent, DispatcherUpdatedEvent } from './dispatcher.events';
import type { MessageDeadLetteredEvent } from './message-dead-lettered.event';
import type { SubscriptionResumedEvent, SubscriptionStalledEvent } from './subscription.events';
import type { TopicCreatedEvent } from './topic-created.event';

/**
 * Names of the lifecycle events the broker emits on the host application's `EventEmitter2` (`@nestjs/event-emitter`),
 * for `@OnEvent(MmmqBrokerEvent.TOPIC_CREATED)`. Each payload is described in {@link MmmqBrokerEventMap}.
 */
export const MmmqBrokerEvent = {
  /** The first publish (or dead letter, or redrive) created a topic. */
  TOPIC_CREATED: 'mmmq.topic.created',
  /** A new consumer id was registered (HTTP, `Dispatcher.add`, or a consumer registering itself). */
  DISPATCHER_REGISTERED: 'mmmq.dispatcher.registered',
  /** A dispatcher's settings other than its hosts changed (`PUT`, `Dispatcher.update`). */
  DISPATCHER_UPDATED: 'mmmq.dispatcher.updated',
  /** A dispatcher was removed, its checkpoints with it. */
  DISPATCHER_REMOVED: 'mmmq.dispatcher.removed',
  /** A push host joined an existing dispatcher (a replica registering with the same settings, or a `PUT`). */
  DISPATCHER_HOST_JOINED: 'mmmq.dispatcher.host-joined',
  /** A push host left a dispatcher that stays (`DELETE …/hosts/{host}`, `Dispatcher.removeHost`, or a `PUT`). */
  DISPATCHER_HOST_LEFT: 'mmmq.dispatcher.host-left',
  /** A message was durably written to its consumer's dead-letter topic. Emitted only while someone listens. */
  MESSAGE_DEAD_LETTERED: 'mmmq.message.dead-lettered',
  /** Pushes of a subscription to one host started failing (backing off) or are refused as unauthorized. */
  SUBSCRIPTION_STALLED: 'mmmq.subscription.stalled',
  /** A stalled host answered a push again. */
  SUBSCRIPTION_RESUMED: 'mmmq.subscription.resumed',
} as const;

export type MmmqBrokerEventName = (typeof MmmqBrokerEvent)[keyof typeof MmmqBrokerEvent];

/** Each event's payload, by name. */
export interface MmmqBrokerEventMap {
  'mmmq.topic.created': TopicCreatedEvent;
  'mmmq.dispatcher.registered': DispatcherRegisteredEvent;
  'mmmq.dispatcher.updated': DispatcherUpdatedEvent;
  'mmmq.dispatcher.removed': DispatcherRemovedEvent;
  'mmmq.dispatcher.host-joined': DispatcherHostJoinedEvent;
  'mmmq.dispatcher.host-left': DispatcherHostLeftEvent;
  'mmmq.message.dead-lettered': MessageDeadLetteredEvent;
  'mmmq.subscription.stalled': SubscriptionStalledEvent;
  'mmmq.subscription.resumed': SubscriptionResumedEvent;
}
