import {
  DEFAULT_BACKOFF_JITTER,
  DEFAULT_BACKOFF_MULTIPLIER,
  explainInvalidTlsClientOptions,
  Host,
  MAX_TIMER_MS,
  TlsClientOptions,
} from '@mmmq/core';
import { InvalidConsumerOptionsError } from '../errors/invalid-consumer-options.error';
import {
  DEFAULT_DELIVERY_BATCH_SIZE,
  DEFAULT_DELIVERY_MAX_IN_FLIGHT,
  DEFAULT_REGISTRATION_ATTEMPTS,
  DEFAULT_REGISTRATION_BACKOFF_MS,
  DEFAULT_REGISTRATION_FAIL_FAST,
  DEFAULT_REGISTRATION_LEAVE_ON_SHUTDOWN,
  DEFAULT_REGISTRATION_MAX_BACKOFF_MS,
  DEFAULT_REGISTRATION_TIMEOUT_MS,
  MAX_DELIVERY_BATCH_SIZE,
  MAX_DELIVERY_MAX_IN_FLIGHT,
  MmmqConsumerOptions,
  RegistrationOptions,
} from '../config/mmmq-consumer.options';
import { atMost, describe, positiveInteger } from '../support/option-checks';
import type { ResolvedBrokerAccess, ResolvedRegistration } from '../config/resolved-consumer-options';

export function resolveBrokerAccess(options: MmmqConsumerOptions, token: string | undefined): ResolvedBrokerAccess | undefined {
  if (options.broker === undefined) return undefined;
  return {
    url: brokerUrl(options.broker),
    token,
    tls: tlsOptions(options.tls),
    timeoutMs: registrationTimeout(options),
  };
}

function registrationTimeout(options: MmmqConsumerOptions): number {
  return positiveInteger('registration.timeoutMs', options.registration?.timeoutMs ?? DEFAULT_REGISTRATION_TIMEOUT_MS, MAX_TIMER_MS);
}

/**
 * Pull: the dispatchers are registered without a host (nothing reaches this application). Present when `broker` is
 * set and `autoRegister` is not false; whether a listener that pulls has a broker is checked with the listeners.
 */
export function resolvePullRegistration(
  options: MmmqConsumerOptions,
  app: string | undefined,
  token: string | undefined,
): ResolvedRegistration | undefined {
  checkAutoRegister(options.autoRegister);
  if (options.broker === undefined || options.autoRegister === false) return undefined;
  requireApp(app);
  const registration = options.registration ?? {};
  return {
    brokerUrl: brokerUrl(options.broker),
    advertisedHost: undefined,
    ...retries(registration),
    timeoutMs: registrationTimeout(options),
    leaveOnShutdown: leaveOnShutdown(registration),
    batchSize: 1,
    maxInFlight: 1,
    tls: tlsOptions(options.tls),
    token,
  };
}

export function resolveRegistration(
  options: MmmqConsumerOptions,
  app: string | undefined,
  token: string | undefined,
): ResolvedRegistration | undefined {
  const { broker, advertisedUrl, autoRegister } = options;
  checkAutoRegister(autoRegister);
  const enabled = autoRegister ?? (broker !== undefined && advertisedUrl !== undefined);
  if (!enabled) return undefined;
  if (broker === undefined || advertisedUrl === undefined) {
    const missing = broker === undefined ? 'broker' : 'advertisedUrl';
    throw new InvalidConsumerOptionsError(
      `autoRegister is on but ${missing} is not set; set both broker and advertisedUrl, or autoRegister: false`,
    );
  }
  requireApp(app);
  const registration = options.registration ?? {};
  return {
    brokerUrl: brokerUrl(broker),
    advertisedHost: advertisedHost(advertisedUrl),
    ...retries(registration),
    timeoutMs: registrationTimeout(options),
    leaveOnShutdown: leaveOnShutdown(registration),
    batchSize: atMost(
      'deliveryBatchSize',
      positiveInteger('deliveryBatchSize', options.deliveryBatchSize ?? DEFAULT_DELIVERY_BATCH_SIZE),
      MAX_DELIVERY_BATCH_SIZE,
    ),
    maxInFlight: atMost(
      'deliveryMaxInFlight',
      positiveInteger('deliveryMaxInFlight', options.deliveryMaxInFlight ?? DEFAULT_DELIVERY_MAX_IN_FLIGHT),
      MAX_DELIVERY_MAX_IN_FLIGHT,
    ),
    tls: tlsOptions(options.tls),
    token,
  };
}

function retries(registration: RegistrationOptions): Pick<ResolvedRegistration, 'failFast' | 'attempts' | 'backoff'> {
  const failFast = registration.failFast ?? DEFAULT_REGISTRATION_FAIL_FAST;
  if (typeof failFast !== 'boolean') {
    throw new InvalidConsumerOptionsError(`registration.failFast must be true or false, got ${describe(failFast)}`);
  }
  // Positive: a retry in the background that does not wait would hammer a broker that is down.
  // Timers: Node fires a delay above MAX_TIMER_MS after 1 ms.
  const initialMs = positiveInteger('registration.backoffMs', registration.backoffMs ?? DEFAULT_REGISTRATION_BACKOFF_MS, MAX_TIMER_MS);
  return {
    failFast,
    attempts: positiveInteger('registration.attempts', registration.attempts ?? DEFAULT_REGISTRATION_ATTEMPTS),
    backoff: {
      initialMs,
      multiplier: DEFAULT_BACKOFF_MULTIPLIER,
      maxMs: Math.max(initialMs, DEFAULT_REGISTRATION_MAX_BACKOFF_MS),
      jitter: DEFAULT_BACKOFF_JITTER,
    },
  };
}

function leaveOnShutdown(registration: RegistrationOptions): boolean {
  const leave = registration.leaveOnShutdown ?? DEFAULT_REGISTRATION_LEAVE_ON_SHUTDOWN;
  if (typeof leave !== 'boolean') {
    throw new InvalidConsumerOptionsError(`registration.leaveOnShutdown must be true or false, got ${describe(leave)}`);
  }
  return leave;
}

function checkAutoRegister(autoRegister: unknown): void {
  if (autoRegister !== undefined && typeof autoRegister !== 'boolean') {
    throw new InvalidConsumerOptionsError(`autoRegister must be true or false, got ${describe(autoRegister)}`);
  }
}

/** Registration names consumer ids after the application, so two applications never share a dispatcher by accident. */
function requireApp(app: string | undefined): void {
  if (app === undefined) {
    throw new InvalidConsumerOptionsError(
      'app is required when autoRegister is on: it prefixes every consumer id so that two applications never ' +
        'share a dispatcher by accident',
    );
  }
}

function tlsOptions(tls: unknown): TlsClientOptions | undefined {
  const problem = explainInvalidTlsClientOptions(tls, 'tls');
  if (problem !== undefined) throw new InvalidConsumerOptionsError(problem);
  return tls as TlsClientOptions | undefined;
}

function brokerUrl(value: unknown): string {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
    throw new InvalidConsumerOptionsError(`broker must be an http(s) URL like "http://127.0.0.1:8080", got ${describe(value)}`);
  }
  // The URL is logged (registration retries, outages): a password in it would be too. Not quoted here either.
  if (url.username !== '' || url.password !== '') {
    throw new InvalidConsumerOptionsError('broker must not carry user info; the broker authenticates the token option instead');
  }
  return url.href.replace(/\/+$/, '');
}

function advertisedHost(value: unknown): Host {
  try {
    return Host.parse(value);
  } catch (error) {
    throw new InvalidConsumerOptionsError(`advertisedUrl is invalid: ${(error as Error).message}`, { cause: error });
  }
}
