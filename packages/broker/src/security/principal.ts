import { Topic, TopicPattern } from '@mmmq/core';
import { ADMIN_ROLE, BROKER_ROLES, BrokerRole } from './broker-role';
import { AccessDeniedError } from './security.errors';

/** Who a request comes from, as far as the broker is concerned: a token's name, roles and publish topics. */
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
}
