import { Inject, Injectable } from '@nestjs/common';
import { ResolvedTopicPolicy } from './topic-policy.options';
import { ResolvedTopicsOptions, topicPolicyOf } from './topic-policy.resolver';

export const MMMQ_TOPICS_OPTIONS = Symbol('MMMQ_TOPICS_OPTIONS');

/** Each topic's retention, limits, expiry, delivery mode and de-duplication (the `topics` option), resolved once per topic. */
@Injectable()
export class TopicPolicies {
  private readonly resolved = new Map<string, ResolvedTopicPolicy>();

  constructor(@Inject(MMMQ_TOPICS_OPTIONS) private readonly options: ResolvedTopicsOptions) {}

  of(topic: string): ResolvedTopicPolicy {
    let policy = this.resolved.get(topic);
    if (!policy) {
      policy = topicPolicyOf(this.options, topic);
      this.resolved.set(topic, policy);
    }
    return policy;
  }
}
