/**
 * On the broker's bus (`BrokerBus`): a consumer's subscription to a topic started (a new dispatcher, a new matching
 * topic, or a restored one), so a fetch or an in-process member waiting for its consumer's first topic can go on.
 */
export class SubscriptionAttachedEvent {
  static readonly NAME = 'mmmq.registry.subscription-attached';
  constructor(
    readonly topic: string,
    readonly consumerId: string,
  ) {}
}
