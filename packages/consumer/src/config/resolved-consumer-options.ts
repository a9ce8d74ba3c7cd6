import type { BackoffOptions, Host, MmmqTransport, SigningSecret, TlsClientOptions } from '@mmmq/core';
import type { AckMode } from '../listener/ack-mode';
import type { DeliveryMode } from '../listener/delivery-mode';
import type { ConsumerClaimCheckOptions } from './claim-check.options';
import type { ListenerConfig, MmmqConsumerOptions } from './mmmq-consumer.options';

/** Injection token of the validated options. */
export const MMMQ_CONSUMER_RESOLVED_OPTIONS = Symbol('MMMQ_CONSUMER_RESOLVED_OPTIONS');

/** How pushes must be signed, present only when `signingSecrets` are set. */
export interface ResolvedSigning {
  /** The first is sent when registering; any of them verifies. */
  secrets: SigningSecret[];
  toleranceSeconds: number;
}

/** `MmmqConsumerOptions` after defaults were applied and every value was checked. */
export interface ResolvedConsumerOptions {
  app: string | undefined;
  queueSize: number;
  workers: { min: number; max: number };
  shutdownTimeoutMs: number;
  maxBodyBytes: number;
  /**
   * How each delivery mode's dispatchers are registered; absent where nothing registers them (`autoRegister: false`,
   * or what the mode needs is not set: `advertisedUrl` for push, `broker` and `app` for pull).
   */
  registrations: Readonly<Record<DeliveryMode, ResolvedRegistration | undefined>>;
  signing: ResolvedSigning | undefined;
  listeners: ReadonlyMap<string, ListenerConfig>;
  /** The module's default; listeners may override it. */
  ackMode: AckMode;
  /** The module's default; listeners may override it. */
  delivery: DeliveryMode;
  broker: ResolvedBrokerAccess | undefined;
  /** The settings of listeners that pull (defaults when `pull` is not set). */
  pull: ResolvedPull;
  /** Options whose use depends on the listeners' delivery, as given: checked once the listeners are known. */
  given: Pick<MmmqConsumerOptions, 'pull' | 'advertisedUrl' | 'autoRegister'>;
  /** Absent when claim checks are not resolved (they are dead-lettered). */
  claimCheck: Required<ConsumerClaimCheckOptions> | undefined;
  /** Present when listeners receive through another transport than the MMMQ broker. */
  transport: MmmqTransport | undefined;
}

/** How to reach the broker's dispatcher API, present only when self-registration is on. */
export interface ResolvedRegistration {
  /** Without a trailing slash. */
  brokerUrl: string;
  /** Absent with `delivery: 'pull'`: the dispatcher is registered without a host (pull only). */
  advertisedHost: Host | undefined;
  /** Bootstrap waits for the registrations (and fails after `attempts`); otherwise they run in the background. */
  failFast: boolean;
  attempts: number;
  /** Waits between tries: `backoffMs` doubling to {@link DEFAULT_REGISTRATION_MAX_BACKOFF_MS}, minus jitter. */
  backoff: BackoffOptions;
  timeoutMs: number;
  /** A graceful shutdown takes `advertisedHost` out of the dispatchers this application joined. */
  leaveOnShutdown: boolean;
  /** The `batchSize` asked of the broker. */
  batchSize: number;
  /** The `maxInFlight` asked of the broker. */
  maxInFlight: number;
  /** Sent as a bearer token with every request to the dispatcher API; absent when none is configured. */
  token: string | undefined;
  tls: TlsClientOptions | undefined;
}

/** How to reach the broker's consumer API (pull, lease extension), present whenever `broker` is set. */
export interface ResolvedBrokerAccess {
  /** Without a trailing slash. */
  url: string;
  token: string | undefined;
  tls: TlsClientOptions | undefined;
  /** Time limit of one request (a fetch may take its `waitMs` longer): `registration.timeoutMs`. */
  timeoutMs: number;
}

/** `pull` after defaults were applied and every value was checked. */
export interface ResolvedPull {
  prefetch: number;
  waitMs: number;
  member: string;
  /** Absent: the dispatcher's lease length. */
  ackTimeoutMs: number | undefined;
  /** 0: leases are not extended. */
  maxLeaseExtensionMs: number;
}
