import { Injectable } from '@nestjs/common';
import { PendingRegistration, RegistrationStatus } from '../registration/registration-status';

/** The key {@link MmmqConsumerHealthIndicator.isHealthy} reports under unless given another. */
export const DEFAULT_CONSUMER_HEALTH_KEY = 'mmmq-consumer';

/** What the indicator says about the consumer; the shape of a `@nestjs/terminus` indicator's entry. */
export interface MmmqConsumerHealth {
  /** `up` once every listener's dispatcher is registered with the broker (or nothing needs registering). */
  status: 'up' | 'down';
  /** Consumer ids whose dispatchers the broker holds. */
  registered: string[];
  /** The others, each with its tries and last error; empty when `up`. */
  pending: PendingRegistration[];
  /** Why it is down, in one line. */
  message?: string;
}

/**
 * Readiness of the consumer: down until the broker holds every listener's dispatcher (self-registration retries in
 * the background while the broker is down). The result has `@nestjs/terminus`'s shape, `{ [key]: { status, … } }`,
 * so it plugs into a `HealthCheckService.check([...])` as is, without this package depending on terminus:
 * `() => this.mmmq.isHealthy('mmmq')`.
 */
@Injectable()
export class MmmqConsumerHealthIndicator {
  constructor(private readonly status: RegistrationStatus) {}

  isHealthy<const Key extends string = typeof DEFAULT_CONSUMER_HEALTH_KEY>(
    key: Key = DEFAULT_CONSUMER_HEALTH_KEY as Key,
  ): Promise<Record<Key, MmmqConsumerHealth>> {
    return Promise.resolve({ [key]: this.check() } as Record<Key, MmmqConsumerHealth>);
  }

  /** The same, without the key. */
  check(): MmmqConsumerHealth {
    const { started, registered, pending } = this.status.snapshot();
    if (!started) return { status: 'down', registered, pending, message: 'the application has not finished bootstrapping' };
    if (pending.length === 0) return { status: 'up', registered, pending };
    const first = pending[0];
    const why = first.lastError === undefined ? 'not tried yet' : first.lastError;
    return {
      status: 'down',
      registered,
      pending,
      message: `${pending.length} dispatcher(s) not registered with the broker yet (${first.consumerId}: ${why})`,
    };
  }
}
