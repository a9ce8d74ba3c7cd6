import { Injectable } from '@nestjs/common';
import { FrontHandler, FrontHandlerStalls } from '../handling/front-handler';
import { InvalidConsumerOptionsError } from '../errors/invalid-consumer-options.error';
import { PendingRegistration, RegistrationStatus } from '../registration/registration-status';
import { TransportStatus } from '../transport/transport-status';
import { TransportHealth } from '../handling/transport-health';

/** The key {@link MmmqConsumerHealthIndicator.isHealthy} reports under unless given another. */
export const DEFAULT_CONSUMER_HEALTH_KEY = 'mmmq-consumer';
/**
 * A handler running longer than this counts as stuck. Ten times the broker's default push timeout (30 s): the broker
 * has long given up on that delivery and will send it again, so the handler is hung, not slow. Raise it for
 * listeners that legitimately run longer.
 */
export const DEFAULT_MAX_HANDLER_MS = 5 * 60_000;
/**
 * The worker queue full without a break for longer than this counts as stuck: every push meanwhile was refused
 * (503) and is waiting at the broker, so the consumer takes no new work.
 */
export const DEFAULT_MAX_QUEUE_FULL_MS = 60_000;

/** Thresholds of the "handlers not stuck" check. */
export interface ConsumerHealthOptions {
  /** Default {@link DEFAULT_MAX_HANDLER_MS}. */
  maxHandlerMs?: number;
  /** Default {@link DEFAULT_MAX_QUEUE_FULL_MS}. */
  maxQueueFullMs?: number;
}

/** What the indicator says about the consumer; the shape of a `@nestjs/terminus` indicator's entry. */
export interface MmmqConsumerHealth {
  /**
   * `up` once every listener's dispatcher is registered with the broker (or nothing needs registering), no handler is
   * stuck, and the transport (if any) receives.
   */
  status: 'up' | 'down';
  /** Consumer ids whose dispatchers the broker holds. */
  registered: string[];
  /** The others, each with its tries and last error; empty when registration is complete. */
  pending: PendingRegistration[];
  /** The worker pool: handlers running, messages waiting, and how long the oldest ran and the queue was full. */
  handlers: FrontHandlerStalls & { running: number; waiting: number };
  /** On a transport other than the MMMQ broker (the `transport` option, `MmmqTestingModule`): whether it receives. */
  transport?: TransportHealth;
  /** Why it is down, in one line. */
  message?: string;
}

/**
 * Health of the consumer: down until the broker holds every listener's dispatcher (self-registration retries in
 * the background while the broker is down), down while a handler runs longer than `maxHandlerMs` or the worker
 * queue stays full longer than `maxQueueFullMs`, and on another transport down while its subscriber does not receive
 * (RabbitMQ: from a dropped connection until every listener is subscribed again). The result has `@nestjs/terminus`'s
 * shape, `{ [key]: { status, … } }`, so it plugs into a `HealthCheckService.check([...])` as is, without this package
 * depending on terminus: `() => this.mmmq.isHealthy('mmmq')`.
 */
@Injectable()
export class MmmqConsumerHealthIndicator {
  constructor(
    private readonly status: RegistrationStatus,
    private readonly frontHandler: FrontHandler,
    private readonly transportStatus: TransportStatus,
  ) {}

  /** @throws InvalidConsumerOptionsError when a threshold is not a positive integer */
  isHealthy<const Key extends string = typeof DEFAULT_CONSUMER_HEALTH_KEY>(
    key: Key = DEFAULT_CONSUMER_HEALTH_KEY as Key,
    options: ConsumerHealthOptions = {},
  ): Promise<Record<Key, MmmqConsumerHealth>> {
    return Promise.resolve({ [key]: this.check(options) } as Record<Key, MmmqConsumerHealth>);
  }

  /** The same, without the key. */
  check(options: ConsumerHealthOptions = {}): MmmqConsumerHealth {
    const maxHandlerMs = threshold('maxHandlerMs', options.maxHandlerMs ?? DEFAULT_MAX_HANDLER_MS);
    const maxQueueFullMs = threshold('maxQueueFullMs', options.maxQueueFullMs ?? DEFAULT_MAX_QUEUE_FULL_MS);
    const { started, registered, pending } = this.status.snapshot();
    const handlers = { ...this.frontHandler.load, ...this.frontHandler.stalls() };
    const transport = this.transportStatus.snapshot();
    const health = { registered, pending, handlers, ...(transport === undefined ? {} : { transport }) };
    if (!started) return { status: 'down', ...health, message: 'the application has not finished bootstrapping' };
    if (transport !== undefined && !transport.receiving) {
      const forMs = Math.max(0, Date.now() - Date.parse(transport.since));
      return {
        status: 'down',
        ...health,
        message: `the ${transport.name} transport has not been receiving since ${transport.since} (${forMs} ms): ${transport.reason}`,
      };
    }
    if (handlers.longestRunningMs > maxHandlerMs) {
      return { status: 'down', ...health, message: `a handler has run for ${handlers.longestRunningMs} ms (maxHandlerMs ${maxHandlerMs})` };
    }
    if (handlers.queueFullMs > maxQueueFullMs) {
      return {
        status: 'down',
        ...health,
        message: `the worker queue has been full for ${handlers.queueFullMs} ms (maxQueueFullMs ${maxQueueFullMs}); pushes are refused`,
      };
    }
    if (pending.length === 0) return { status: 'up', ...health };
    const first = pending[0];
    const why = first.lastError === undefined ? 'not tried yet' : first.lastError;
    return {
      status: 'down',
      ...health,
      message: `${pending.length} dispatcher(s) not registered with the broker yet (${first.consumerId}: ${why})`,
    };
  }
}

function threshold(name: keyof ConsumerHealthOptions, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new InvalidConsumerOptionsError(`The health check's ${name} must be a positive integer (ms), got ${String(value)}`);
  }
  return value;
}
