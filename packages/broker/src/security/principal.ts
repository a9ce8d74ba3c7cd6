import { RESERVED_TOPIC_PREFIX, Topic, TopicPattern } from '@mmmq/core';
import { ADMIN_ROLE, BROKER_ROLES, BrokerRole } from './broker-role';
import type { ConsumerScope } from './consumer-scope';
import { AccessDeniedError } from './security.errors';

/**
 * Who a request comes from, as far as the broker is concerned: a token's name, roles, publish topics and the
 * consumer ids it may act for.
 */
export class Principal {
  /** Every loopback client of a broker without tokens: allowed everything. */
  static readonly LOOPBACK = new Principal('a loopback client (authentication is off)', BROKER_ROLES);

  private readonly roles: ReadonlySet<BrokerRole>;

  constructor(
    /** The token's name, never the token. */
    readonly name: string,
    roles: Iterable<BrokerRole>,
    /** Patterns of the topics it may publish to; any topic when undefined. */
    private readonly publishTopics?: readonly TopicPattern[],
    /** The consumer ids it may act for; any when undefined. */
    private readonly consumers?: ConsumerScope,
  ) {
    this.roles = new Set(roles);
  }

  /** `admin` implies every role. */
  has(role: BrokerRole): boolean {
    return this.roles.has(role) || this.roles.has(ADMIN_ROLE);
  }

  /** @throws AccessDeniedError when it lacks `role` */
  assertHas(role: BrokerRole): void {
    if (!this.has(role)) {
      throw new AccessDeniedError(`The token ${this.name} lacks the ${role} role (it has ${[...this.roles].join(', ')})`);
    }
  }

  /** @throws AccessDeniedError naming the first topic it may not publish to (nothing of the request is stored) */
  assertMayPublish(topics: Iterable<Topic>): void {
    this.assertHas('publish');
    if (this.publishTopics === undefined) return;
    for (const topic of topics) {
      if (!this.publishTopics.some((pattern) => pattern.matches(topic))) {
        throw new AccessDeniedError(
          `The token ${this.name} may not publish to ${topic.name}; it may publish to ` +
            `${this.publishTopics.map((pattern) => pattern.value).join(', ')}. Nothing was stored`,
        );
      }
    }
  }

  /** Whether its consumer scope covers `consumerId` (true for a token without one). */
  mayActFor(consumerId: string): boolean {
    return this.consumers === undefined || this.consumers.covers(consumerId);
  }

  /** @throws AccessDeniedError naming the consumer id and the token's scope when it does not cover `consumerId` */
  assertMayActFor(consumerId: string): void {
    if (!this.mayActFor(consumerId)) {
      throw new AccessDeniedError(
        `The token ${this.name} may not act for the consumer ${consumerId}; it may act for the consumers ` +
          `${String(this.consumers)} (auth.tokens[].consumers). Nothing was changed`,
      );
    }
  }

  /**
   * Topics starting with `__` are the broker's own (`__dlq.{consumerId}`: dead letters, `__redrive.{consumerId}`:
   * redriven ones): only an admin token may register a dispatcher on them, since they hold other consumers' messages.
   * @throws AccessDeniedError naming the first such pattern
   */
  assertMaySubscribe(patterns: Iterable<TopicPattern>): void {
    if (this.has(ADMIN_ROLE)) return;
    for (const pattern of patterns) {
      if (pattern.value.startsWith(RESERVED_TOPIC_PREFIX)) {
        throw new AccessDeniedError(
          `The token ${this.name} may not subscribe to ${pattern.value}: topics starting with ${RESERVED_TOPIC_PREFIX} ` +
            `are the broker's own (dead letters in __dlq.*, redriven ones in __redrive.*), for admin tokens only. Nothing was changed`,
        );
      }
    }
  }
}
