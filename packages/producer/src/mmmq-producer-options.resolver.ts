import {
  describeValue as describe,
  explainInvalidTlsClientOptions,
  isBearerTokenText,
  MAX_TIMER_MS,
  explainInvalidTransportOption,
  type MmmqTransport,
  optionChecks,
  SECURE_STREAM_URL_PROTOCOL,
  STREAM_URL_PROTOCOL,
  TlsClientOptions,
} from '@mmmq/core';
import { BatchingLimits, DEFAULT_BATCH_MAX_BYTES, DEFAULT_BATCH_MAX_MESSAGES, DEFAULT_STREAM_MAX_IN_FLIGHT } from './publish-batcher';
import { InvalidProducerOptionsError } from './errors/invalid-producer-options.error';
import {
  DEFAULT_MAX_RETRY_COUNT,
  DEFAULT_MAX_RETRY_DELAY_MS,
  DEFAULT_RETRY_DELAY_MS,
  DEFAULT_TIMEOUT_MS,
  MmmqProducerOptions,
} from './mmmq-producer.options';
import type { RetryOptions } from './retry/retry-policy';
import type { ResolvedClaimCheck } from './claim-check/claim-check.options';
import { resolveClaimCheck } from './claim-check/claim-check-options.resolver';
import { resolveEvents } from './asyncapi/events-option.resolver';

/** Injection token of the {@link ResolvedProducerOptions}. */
export const RESOLVED_PRODUCER_OPTIONS = Symbol('RESOLVED_PRODUCER_OPTIONS');

/** Producer options after defaults are applied and validation passed. */
export interface ResolvedProducerOptions extends RetryOptions {
  /**
   * Normalised without a trailing `/`; `mmmq://` (`mmmqs://` over TLS) for the publish stream; absent only with an
   * in-memory broker or a `transport`.
   */
  broker: string | undefined;
  /** Present when messages go through another transport than the MMMQ broker. */
  transport: MmmqTransport | undefined;
  /** Absent when no TLS option is given. */
  tls: TlsClientOptions | undefined;
  timeoutMs: number;
  /** Absent when batching is off. */
  batching: BatchingLimits | undefined;
  /** Absent when none is configured. */
  token: string | undefined;
  /** Absent when contents are never claim-checked. */
  claimCheck: ResolvedClaimCheck | undefined;
  /** Topic → content class, for the AsyncAPI document; empty when `events` is not given. */
  events: ReadonlyMap<string, Function>;
}

const KNOWN_OPTIONS: ReadonlySet<string> = new Set<keyof MmmqProducerOptions>([
  'broker',
  'maxRetryCount',
  'retryDelayMs',
  'maxRetryDelayMs',
  'timeoutMs',
  'batching',
  'tls',
  'token',
  'claimCheck',
  'transport',
  'events',
]);
const BROKER_EXAMPLE = '"http://localhost:8080" or "mmmq://localhost:8081"';
/** Options of the MMMQ broker, meaningless with another transport. */
const BROKER_ONLY_OPTIONS: readonly (keyof MmmqProducerOptions)[] = ['broker', 'token', 'tls'];
const { nonNegativeInteger, positiveInteger } = optionChecks(InvalidProducerOptionsError);

/**
 * Applies defaults and checks every option, naming the offending one, so a typo fails at bootstrap instead of
 * on the first publish. Unknown keys are refused too: a misspelt `maxRetries` would otherwise be ignored.
 *
 * @param brokerAtHand a broker at hand without a URL, which makes `broker` optional: the in-memory one of tests
 *   (which replaces HTTP and any `transport`) or this application's own `MmmqBrokerModule` (`in-process`)
 * @throws InvalidProducerOptionsError
 */
export function resolveProducerOptions(options: unknown, brokerAtHand: false | 'in-memory' | 'in-process'): ResolvedProducerOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidProducerOptionsError(`Producer options must be an object, got ${describe(options)}`);
  }
  const unknown = Object.keys(options).find((key) => !KNOWN_OPTIONS.has(key));
  if (unknown !== undefined) {
    throw new InvalidProducerOptionsError(
      `Unknown producer option ${JSON.stringify(unknown)}; the options are ${[...KNOWN_OPTIONS].join(', ')}`,
    );
  }
  const given = options as MmmqProducerOptions;
  const transport = transportOption(given);
  if (given.broker === undefined && transport === undefined && !brokerAtHand) {
    throw new InvalidProducerOptionsError(
      `broker is required: give the broker's URL, like ${BROKER_EXAMPLE}, import MmmqBrokerModule in this application, or MmmqTestingModule in tests; or set transport to publish through another one`,
    );
  }
  const broker = given.broker === undefined ? undefined : brokerUrl(given.broker);
  return {
    broker,
    transport,
    maxRetryCount: nonNegativeInteger('maxRetryCount', given.maxRetryCount ?? DEFAULT_MAX_RETRY_COUNT),
    retryDelayMs: nonNegativeInteger('retryDelayMs', given.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS, MAX_TIMER_MS),
    maxRetryDelayMs: nonNegativeInteger('maxRetryDelayMs', given.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS, MAX_TIMER_MS),
    timeoutMs: positiveInteger('timeoutMs', given.timeoutMs ?? DEFAULT_TIMEOUT_MS, MAX_TIMER_MS),
    // In process, publishes are committed in call order, as over the stream.
    batching: batchingLimits(
      given.batching,
      broker !== undefined ? isStreamUrl(broker) : transport === undefined && brokerAtHand === 'in-process',
      transport,
    ),
    tls: tlsOptions(given.tls),
    token: token(given.token),
    claimCheck: resolveClaimCheck(given.claimCheck),
    events: resolveEvents(given.events),
  };
}

/** Whether `broker` names the publish stream, plain or over TLS. */
export function isStreamUrl(broker: string): boolean {
  return broker.startsWith(`${STREAM_URL_PROTOCOL}//`) || broker.startsWith(`${SECURE_STREAM_URL_PROTOCOL}//`);
}

/** With `transport`, the MMMQ broker's own options would be ignored: refused, so a leftover is noticed. */
function transportOption(given: MmmqProducerOptions): MmmqTransport | undefined {
  const problem = explainInvalidTransportOption(given, BROKER_ONLY_OPTIONS);
  if (problem !== undefined) throw new InvalidProducerOptionsError(problem);
  return given.transport;
}

function tlsOptions(tls: unknown): TlsClientOptions | undefined {
  const problem = explainInvalidTlsClientOptions(tls, 'tls');
  if (problem !== undefined) throw new InvalidProducerOptionsError(problem);
  return tls as TlsClientOptions | undefined;
}

/** Never quoted in the error: it is a secret. */
function token(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (!isBearerTokenText(value)) {
    throw new InvalidProducerOptionsError('token must be a non-empty string of printable ASCII characters without spaces');
  }
  return value;
}

/** `ordered`: the way to the broker keeps call order (the publish stream, or this application's broker in process). */
function batchingLimits(
  batching: MmmqProducerOptions['batching'],
  ordered: boolean,
  transport: MmmqTransport | undefined,
): BatchingLimits | undefined {
  if (batching === false) return undefined;
  if (batching !== undefined && (typeof batching !== 'object' || batching === null)) {
    throw new InvalidProducerOptionsError(`batching must be false or { maxMessages?, maxBytes?, maxInFlight? }, got ${describe(batching)}`);
  }
  const maxInFlight = positiveInteger(
    'batching.maxInFlight',
    batching?.maxInFlight ?? (ordered ? DEFAULT_STREAM_MAX_IN_FLIGHT : 1),
    Number.MAX_SAFE_INTEGER,
  );
  // Two HTTP requests, or two publishes of a transport, may be handled in either order: only the stream and the
  // broker in process keep call order with more.
  if (maxInFlight > 1 && !ordered) {
    const via = transport === undefined ? 'HTTP' : `the ${transport.name} transport`;
    throw new InvalidProducerOptionsError(
      `batching.maxInFlight above 1 needs the publish stream (an mmmq:// broker URL) or this application's broker, got ${maxInFlight} with ${via}`,
    );
  }
  return {
    maxMessages: positiveInteger('batching.maxMessages', batching?.maxMessages ?? DEFAULT_BATCH_MAX_MESSAGES, Number.MAX_SAFE_INTEGER),
    maxBytes: positiveInteger('batching.maxBytes', batching?.maxBytes ?? DEFAULT_BATCH_MAX_BYTES, Number.MAX_SAFE_INTEGER),
    maxInFlight,
  };
}

function brokerUrl(value: unknown): string {
  if (typeof value !== 'string') {
    throw new InvalidProducerOptionsError(`broker must be a URL string like ${BROKER_EXAMPLE}, got ${describe(value)}`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch (error) {
    throw new InvalidProducerOptionsError(`broker must be a URL like ${BROKER_EXAMPLE}, got ${describe(value)}`, {
      cause: error,
    });
  }
  if (url.protocol === STREAM_URL_PROTOCOL || url.protocol === SECURE_STREAM_URL_PROTOCOL) return streamUrl(url, value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidProducerOptionsError(`broker must be an http, https, mmmq or mmmqs URL, got ${describe(value)}`);
  }
  // The producer appends its own path; a query or fragment would silently end up in front of it or be dropped.
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new InvalidProducerOptionsError(`broker must not have a query, fragment or user info, got ${describe(value)}`);
  }
  return url.href.replace(/\/+$/, '');
}

/** `mmmq://host:port`: the port is required (the stream has no default one) and nothing may follow it. */
function streamUrl(url: URL, value: string): string {
  if (
    url.port === '' ||
    url.hostname === '' ||
    (url.pathname !== '' && url.pathname !== '/') ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    url.password !== ''
  ) {
    throw new InvalidProducerOptionsError(`broker must be ${url.protocol}//host:port for the publish stream, got ${describe(value)}`);
  }
  return `${url.protocol}//${url.host}`;
}
