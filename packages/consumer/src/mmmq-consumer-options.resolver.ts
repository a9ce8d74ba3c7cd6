import { DEFAULT_SIGNATURE_TOLERANCE_SECONDS, explainInvalidTlsClientOptions, Host, isBearerTokenText, MmmqError, SigningSecret, TlsClientOptions } from '@mmmq/core';
import { InvalidConsumerOptionsError } from './errors/invalid-consumer-options.error';
import { assertListenerConsumerId } from './listener/consumer-id.naming';
import {
  DEFAULT_DELIVERY_BATCH_SIZE,
  DEFAULT_DELIVERY_MAX_IN_FLIGHT,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_WORKERS,
  DEFAULT_MIN_WORKERS,
  DEFAULT_QUEUE_SIZE,
  DEFAULT_REGISTRATION_ATTEMPTS,
  DEFAULT_REGISTRATION_BACKOFF_MS,
  DEFAULT_REGISTRATION_TIMEOUT_MS,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  MAX_DELIVERY_BATCH_SIZE,
  MAX_DELIVERY_MAX_IN_FLIGHT,
  ListenerConfig,
  MmmqConsumerOptions,
  StartFrom,
} from './mmmq-consumer.options';

/** Injection token of the validated options. */
export const MMMQ_CONSUMER_RESOLVED_OPTIONS = Symbol('MMMQ_CONSUMER_RESOLVED_OPTIONS');

/** How to reach the broker's dispatcher API, present only when self-registration is on. */
export interface ResolvedRegistration {
  /** Without a trailing slash. */
  brokerUrl: string;
  advertisedHost: Host;
  attempts: number;
  backoffMs: number;
  timeoutMs: number;
  /** The `batchSize` asked of the broker. */
  batchSize: number;
  /** The `maxInFlight` asked of the broker. */
  maxInFlight: number;
  /** Sent as a bearer token with every request to the dispatcher API; absent when none is configured. */
  token: string | undefined;
  tls: TlsClientOptions | undefined;
}

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
  registration: ResolvedRegistration | undefined;
  signing: ResolvedSigning | undefined;
  listeners: ReadonlyMap<string, ListenerConfig>;
}

const LISTENER_CONFIG_FIELDS = new Set(['consumerId', 'concurrency', 'startFrom']);
const START_FROM: ReadonlySet<unknown> = new Set<StartFrom>(['earliest', 'latest']);

/**
 * Applies defaults and checks every option, naming the offending one, so a typo fails at bootstrap instead
 * of on the first message.
 * @throws InvalidConsumerOptionsError
 */
export function resolveConsumerOptions(options: MmmqConsumerOptions = {}): ResolvedConsumerOptions {
  const app = options.app === undefined ? undefined : validId('app', options.app);
  // Checked even when nothing registers, so that a broken token fails at bootstrap whatever else is set.
  const token = bearerToken(options.token);
  // A default never contradicts the one bound that was given: `{ max: 1 }` alone is a valid pool.
  const givenMin = options.workers?.min === undefined ? undefined : positiveInteger('workers.min', options.workers.min);
  const givenMax = options.workers?.max === undefined ? undefined : positiveInteger('workers.max', options.workers.max);
  const max = givenMax ?? Math.max(DEFAULT_MAX_WORKERS, givenMin ?? 0);
  const min = givenMin ?? Math.min(DEFAULT_MIN_WORKERS, max);
  if (min > max) throw new InvalidConsumerOptionsError(`workers.min (${min}) must not exceed workers.max (${max})`);
  return {
    app,
    queueSize: positiveInteger('queueSize', options.queueSize ?? DEFAULT_QUEUE_SIZE),
    workers: { min, max },
    shutdownTimeoutMs: nonNegativeInteger('shutdownTimeoutMs', options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS),
    maxBodyBytes: positiveInteger('maxBodyBytes', options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES),
    registration: resolveRegistration(options, app, token),
    signing: resolveSigning(options),
    listeners: resolveListenerConfigs(options.listeners ?? {}),
  };
}

function resolveRegistration(
  options: MmmqConsumerOptions,
  app: string | undefined,
  token: string | undefined,
): ResolvedRegistration | undefined {
  const { broker, advertisedUrl, autoRegister } = options;
  if (autoRegister !== undefined && typeof autoRegister !== 'boolean') {
    throw new InvalidConsumerOptionsError(`autoRegister must be true or false, got ${describe(autoRegister)}`);
  }
  const enabled = autoRegister ?? (broker !== undefined && advertisedUrl !== undefined);
  if (!enabled) return undefined;
  if (broker === undefined || advertisedUrl === undefined) {
    const missing = broker === undefined ? 'broker' : 'advertisedUrl';
    throw new InvalidConsumerOptionsError(
      `autoRegister is on but ${missing} is not set; set both broker and advertisedUrl, or autoRegister: false`,
    );
  }
  if (app === undefined) {
    throw new InvalidConsumerOptionsError(
      'app is required when autoRegister is on: it prefixes every consumer id so that two applications never ' +
        'share a dispatcher by accident',
    );
  }
  const registration = options.registration ?? {};
  return {
    brokerUrl: brokerUrl(broker),
    advertisedHost: advertisedHost(advertisedUrl),
    attempts: positiveInteger('registration.attempts', registration.attempts ?? DEFAULT_REGISTRATION_ATTEMPTS),
    backoffMs: nonNegativeInteger('registration.backoffMs', registration.backoffMs ?? DEFAULT_REGISTRATION_BACKOFF_MS),
    timeoutMs: positiveInteger('registration.timeoutMs', registration.timeoutMs ?? DEFAULT_REGISTRATION_TIMEOUT_MS),
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

function tlsOptions(tls: unknown): TlsClientOptions | undefined {
  const problem = explainInvalidTlsClientOptions(tls, 'tls');
  if (problem !== undefined) throw new InvalidConsumerOptionsError(problem);
  return tls as TlsClientOptions | undefined;
}

function resolveSigning({ signingSecrets, signatureToleranceSeconds }: MmmqConsumerOptions): ResolvedSigning | undefined {
  const toleranceSeconds = positiveInteger(
    'signatureToleranceSeconds',
    signatureToleranceSeconds ?? DEFAULT_SIGNATURE_TOLERANCE_SECONDS,
  );
  if (signingSecrets === undefined) return undefined;
  if (!Array.isArray(signingSecrets) || signingSecrets.length === 0) {
    throw new InvalidConsumerOptionsError('signingSecrets must be a non-empty array of "whsec_…" secrets, or left out');
  }
  const secrets = signingSecrets.map((secret, i) => {
    try {
      return SigningSecret.parse(secret, `signingSecrets[${i}]`);
    } catch (error) {
      throw new InvalidConsumerOptionsError((error as Error).message, { cause: error });
    }
  });
  return { secrets, toleranceSeconds };
}

/** Never quoted in the error: it is a secret. */
function bearerToken(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (!isBearerTokenText(value)) {
    throw new InvalidConsumerOptionsError('token must be a non-empty string of printable ASCII characters without spaces');
  }
  return value;
}

function atMost(name: string, value: number, max: number): number {
  if (value > max) throw new InvalidConsumerOptionsError(`${name} must be at most ${max}, got ${value}`);
  return value;
}

function brokerUrl(value: unknown): string {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
    throw new InvalidConsumerOptionsError(
      `broker must be an http(s) URL like "http://127.0.0.1:8080", got ${describe(value)}`,
    );
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

function resolveListenerConfigs(listeners: unknown): ReadonlyMap<string, ListenerConfig> {
  if (typeof listeners !== 'object' || listeners === null || Array.isArray(listeners)) {
    throw new InvalidConsumerOptionsError(`listeners must be an object keyed by listener name, got ${describe(listeners)}`);
  }
  const resolved = new Map<string, ListenerConfig>();
  for (const [name, config] of Object.entries(listeners as Record<string, unknown>)) {
    resolved.set(name, resolveListenerConfig(`listeners[${JSON.stringify(name)}]`, config));
  }
  return resolved;
}

function resolveListenerConfig(where: string, config: unknown): ListenerConfig {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new InvalidConsumerOptionsError(`${where} must be an object, got ${describe(config)}`);
  }
  const record = config as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => !LISTENER_CONFIG_FIELDS.has(key));
  if (unknown.length > 0) {
    throw new InvalidConsumerOptionsError(
      `${where} has unknown field(s) ${unknown.join(', ')}; allowed are ${[...LISTENER_CONFIG_FIELDS].join(', ')}`,
    );
  }
  if (record.startFrom !== undefined && !START_FROM.has(record.startFrom)) {
    throw new InvalidConsumerOptionsError(`${where}.startFrom must be "earliest" or "latest", got ${describe(record.startFrom)}`);
  }
  return {
    consumerId: record.consumerId === undefined ? undefined : validId(`${where}.consumerId`, record.consumerId),
    concurrency: record.concurrency === undefined ? undefined : positiveInteger(`${where}.concurrency`, record.concurrency),
    startFrom: record.startFrom as StartFrom | undefined,
  };
}

function validId(name: string, value: unknown): string {
  try {
    return assertListenerConsumerId(value);
  } catch (error) {
    if (!(error instanceof MmmqError)) throw error;
    throw new InvalidConsumerOptionsError(`${name} is invalid: ${error.message}`, { cause: error });
  }
}

function positiveInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new InvalidConsumerOptionsError(`${name} must be a positive integer, got ${describe(value)}`);
  }
  return value;
}

function nonNegativeInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidConsumerOptionsError(`${name} must be a non-negative integer, got ${describe(value)}`);
  }
  return value;
}

function describe(value: unknown): string {
  if (typeof value === 'string' || (typeof value === 'object' && value !== null)) {
    // A circular object cannot be printed; its kind is enough to recognise it.
    try {
      return JSON.stringify(value);
    } catch {
      return 'an object';
    }
  }
  return String(value);
}
