export { MmmqBrokerEvent, type MmmqBrokerEventMap, type MmmqBrokerEventName } from './mmmq-broker-event';
export type { TopicCreatedEvent } from './topic-created.event';
export type { DispatcherRegisteredEvent, DispatcherRemovedEvent, DispatcherUpdatedEvent } from './dispatcher.events';
export type { DispatcherHostJoinedEvent, DispatcherHostLeftEvent } from './dispatcher-host.events';
export type { MessageDeadLetteredEvent } from './message-dead-lettered.event';
export type { StallReason, SubscriptionResumedEvent, SubscriptionStalledEvent } from './subscription.events';
