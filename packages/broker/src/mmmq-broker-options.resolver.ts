import { BackoffOptions, describeValue as describe, FSYNC_MODES, FsyncMode, HOST_PORT_MAX, MAX_TIMER_MS, optionChecks } from '@mmmq/core';
import { resolve } from 'node:path';
import { ConsoleOptions, ResolvedConsoleOptions } from './console/console.options';
import { DEFAULT_DELIVERY_OPTIONS, DeliveryOptions, ResolvedDeliveryOptions } from './dispatch/delivery.options';
import { DispatcherDefinition, parseDispatcherDefinition } from './dispatch/dispatcher-definition';
import { ResolvedDispatchOptions } from './dispatch/dispatch.options';
import { parseAllowedNetwork, PushTargetPolicy } from './dispatch/push-target-policy';
import { InvalidBrokerOptionsError } from './config/invalid-broker-options.error';
import { MemoryOptions, ResolvedMemoryOptions } from './config/memory-options';
import { DEFAULT_SUBSCRIPTION_WINDOW_BYTES, DEFAULT_WINDOW_BYTES } from './dispatch/ledger/window-budget';
import { DEFAULT_RECENT_ENTRIES_BYTES } from './storage/recent-entries';
import { DEFAULT_RECENT_ENTRIES_TOTAL_BYTES } from './storage/recent-entries-budget';
import {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_BATCH_MESSAGES,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONNECTIONS_PER_IP,
  DEFAULT_MAX_JSON_DEPTH,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_ROOT_DIR,
  DEFAULT_FLUSH_BYTES,
  DEFAULT_FSYNC_INTERVAL_MS,
  DEFAULT_FSYNC_MODE,
  DEFAULT_FLUSH_INTERVAL_MS,
  DEFAULT_SEGMENT_MAX_BYTES,
  DEFAULT_STREAM_HOST,
  DEFAULT_DISK_CHECK_INTERVAL_MS,
  DEFAULT_RETENTION_CHECK_INTERVAL_MS,
  DEFAULT_DISK_MIN_FREE_BYTES,
  DEFAULT_MAX_DISPATCHERS,
  DEFAULT_MAX_SUBSCRIPTIONS,
  DEFAULT_MAX_DELAY_MS,
  DEFAULT_MAX_TOPICS,
  DiskGuardOptions,
  LimitsOptions,
  ResolvedLimitsOptions,
  FlushOptions,
  HttpOptions,
  MmmqBrokerOptions,
  PersistenceOptions,
  ResolvedDiskGuardOptions,
  ResolvedHttpOptions,
  ResolvedPersistenceOptions,
  ResolvedRetentionCheckOptions,
  RetentionCheckOptions,
  ResolvedStreamOptions,
  ResolvedTlsOptions,
  SegmentOptions,
  StreamOptions,
  TlsOptions,
} from './mmmq-broker.options';
import { ResolvedAuthOptions, resolveAuthOptions } from './security/auth-options.resolver';
import { defaultMaxOpenFiles, MIN_OPEN_FILES } from './storage/descriptor-pool';
import { normaliseAllowedHost } from './security/host-policy';
import { normaliseAllowedOrigin } from './security/origin-policy';
import { ResolvedTopicsOptions, resolveTopicsOptions } from './topics/topic-policy.resolver';

/** The whole body is buffered in memory, and a stored entry's 32-bit length field caps it well above this. */
export const MAX_BODY_BYTES_LIMIT = 1024 * 1024 * 1024;

export interface ResolvedBrokerOptions {
  persistence: ResolvedPersistenceOptions;
  /** `persistence.diskGuard`, apart so the many places that build persistence options need not know it. */
  diskGuard: ResolvedDiskGuardOptions;
  /** `persistence.retention`, apart for the same reason. */
  retention: ResolvedRetentionCheckOptions;
  http: ResolvedHttpOptions;
  stream: ResolvedStreamOptions | undefined;
  dispatch: ResolvedDispatchOptions;
  tls: ResolvedTlsOptions | undefined;
  auth: ResolvedAuthOptions;
  topics: ResolvedTopicsOptions;
  console: ResolvedConsoleOptions;
  limits: ResolvedLimitsOptions;
  memory: ResolvedMemoryOptions;
}

const { nonBlankString, nonNegativeInteger, oneOf, positiveInteger } = optionChecks(InvalidBrokerOptionsError);
/** Every option of each group, so an unknown (misspelt) one is refused; the compiler keeps the lists complete. */
const OPTIONS: Record<keyof MmmqBrokerOptions, true> = {
  persistence: true,
  http: true,
  stream: true,
  dispatchers: true,
  delivery: true,
  tls: true,
  auth: true,
  topics: true,
  console: true,
  limits: true,
  memory: true,
};
const MEMORY_OPTIONS: Record<keyof MemoryOptions, true> = {
  windowBytes: true,
  subscriptionWindowBytes: true,
  recentEntriesBytes: true,
  topicRecentEntriesBytes: true,
};
const LIMITS_OPTIONS: Record<keyof LimitsOptions, true> = {
  maxTopics: true,
  maxDispatchers: true,
  maxSubscriptions: true,
  maxDelayMs: true,
  maxOpenFiles: true,
};
const PERSISTENCE_OPTIONS: Record<keyof PersistenceOptions, true> = {
  rootDir: true,
  segment: true,
  flush: true,
  fsync: true,
  fsyncIntervalMs: true,
  diskGuard: true,
  retention: true,
};
const RETENTION_CHECK_OPTIONS: Record<keyof RetentionCheckOptions, true> = { checkIntervalMs: true };
const DISK_GUARD_OPTIONS: Record<keyof DiskGuardOptions, true> = { enabled: true, minFreeBytes: true, checkIntervalMs: true };
const SEGMENT_OPTIONS: Record<keyof SegmentOptions, true> = { maxBytes: true };
const FLUSH_OPTIONS: Record<keyof FlushOptions, true> = { intervalMs: true, bytes: true };
const STREAM_OPTIONS: Record<keyof StreamOptions, true> = { port: true, host: true };
const CONSOLE_OPTIONS: Record<keyof ConsoleOptions, true> = { enabled: true };
const TLS_OPTIONS: Record<keyof TlsOptions, true> = { keyFile: true, certFile: true };
const DELIVERY_OPTIONS: Record<keyof DeliveryOptions, true> = {
  maxNackRetries: true,
  timeoutMs: true,
  backoff: true,
  shutdownGraceMs: true,
  allowedNetworks: true,
  maxSocketsPerHost: true,
  maxSockets: true,
};
const BACKOFF_OPTIONS: Record<keyof BackoffOptions, true> = { initialMs: true, multiplier: true, maxMs: true, jitter: true };
const HTTP_OPTIONS: Record<keyof HttpOptions, true> = {
  maxBodyBytes: true,
  maxJsonDepth: true,
  maxBatchMessages: true,
  allowedHosts: true,
  allowedOrigins: true,
  headersTimeoutMs: true,
  requestTimeoutMs: true,
  keepAliveTimeoutMs: true,
  maxConnectionsPerIp: true,
};

/**
 * Applies defaults and checks every option, naming the offending one, so a typo fails at bootstrap instead of
 * on the first publish.
 *
 * @throws InvalidBrokerOptionsError
 */
export function resolveBrokerOptions(options: MmmqBrokerOptions = {}): ResolvedBrokerOptions {
  const {
    persistence = {},
    http = {},
    stream,
    delivery = {},
    dispatchers = [],
    tls,
    auth,
    topics,
    console: consoleOptions = {},
    limits = {},
    memory = {},
  } = optionGroup('', options, OPTIONS);
  return {
    persistence: resolvePersistence(persistence),
    diskGuard: resolveDiskGuard(persistence),
    retention: resolveRetentionCheck(persistence),
    http: resolveHttp(http),
    stream: resolveStream(stream),
    dispatch: resolveDispatch(dispatchers, delivery),
    tls: resolveTls(tls),
    auth: resolveAuthOptions(auth),
    topics: resolveTopicsOptions(topics, fsyncMode(persistence)),
    console: resolveConsole(consoleOptions),
    limits: resolveLimits(limits),
    memory: resolveMemory(memory),
  };
}

function resolveMemory(given: MemoryOptions): ResolvedMemoryOptions {
  const memory = optionGroup('memory', given, MEMORY_OPTIONS);
  const resolved = {
    windowBytes: positiveInteger('memory.windowBytes', memory.windowBytes ?? DEFAULT_WINDOW_BYTES),
    subscriptionWindowBytes: positiveInteger(
      'memory.subscriptionWindowBytes',
      memory.subscriptionWindowBytes ?? Math.min(DEFAULT_SUBSCRIPTION_WINDOW_BYTES, memory.windowBytes ?? Infinity),
    ),
    recentEntriesBytes: nonNegativeInteger('memory.recentEntriesBytes', memory.recentEntriesBytes ?? DEFAULT_RECENT_ENTRIES_TOTAL_BYTES),
    topicRecentEntriesBytes: nonNegativeInteger(
      'memory.topicRecentEntriesBytes',
      memory.topicRecentEntriesBytes ?? Math.min(DEFAULT_RECENT_ENTRIES_BYTES, memory.recentEntriesBytes ?? Infinity),
    ),
  };
  if (resolved.subscriptionWindowBytes > resolved.windowBytes) {
    throw new InvalidBrokerOptionsError(
      `memory.subscriptionWindowBytes (${resolved.subscriptionWindowBytes}) must be at most memory.windowBytes (${resolved.windowBytes})`,
    );
  }
  return resolved;
}

function resolveLimits(given: LimitsOptions): ResolvedLimitsOptions {
  const limits = optionGroup('limits', given, LIMITS_OPTIONS);
  const maxOpenFiles = positiveInteger('limits.maxOpenFiles', limits.maxOpenFiles ?? defaultMaxOpenFiles());
  if (maxOpenFiles < MIN_OPEN_FILES) {
    throw new InvalidBrokerOptionsError(`limits.maxOpenFiles must be at least ${MIN_OPEN_FILES}, got ${maxOpenFiles}`);
  }
  return {
    maxTopics: positiveInteger('limits.maxTopics', limits.maxTopics ?? DEFAULT_MAX_TOPICS),
    maxDispatchers: positiveInteger('limits.maxDispatchers', limits.maxDispatchers ?? DEFAULT_MAX_DISPATCHERS),
    maxSubscriptions: positiveInteger('limits.maxSubscriptions', limits.maxSubscriptions ?? DEFAULT_MAX_SUBSCRIPTIONS),
    maxDelayMs: positiveInteger('limits.maxDelayMs', limits.maxDelayMs ?? DEFAULT_MAX_DELAY_MS),
    maxOpenFiles,
  };
}

function resolveConsole(given: ConsoleOptions): ResolvedConsoleOptions {
  const { enabled = true } = optionGroup('console', given, CONSOLE_OPTIONS);
  return { enabled: oneOf('console.enabled', enabled, [true, false]) };
}

function resolvePersistence(given: PersistenceOptions): ResolvedPersistenceOptions {
  const persistence = optionGroup('persistence', given, PERSISTENCE_OPTIONS);
  const segment = optionGroup('persistence.segment', persistence.segment ?? {}, SEGMENT_OPTIONS);
  const flush = optionGroup('persistence.flush', persistence.flush ?? {}, FLUSH_OPTIONS);
  return {
    rootDir: resolve(nonBlankString('persistence.rootDir', persistence.rootDir ?? DEFAULT_ROOT_DIR)),
    segmentMaxBytes: positiveInteger('persistence.segment.maxBytes', segment.maxBytes ?? DEFAULT_SEGMENT_MAX_BYTES),
    flushIntervalMs: positiveInteger('persistence.flush.intervalMs', flush.intervalMs ?? DEFAULT_FLUSH_INTERVAL_MS),
    flushBytes: positiveInteger('persistence.flush.bytes', flush.bytes ?? DEFAULT_FLUSH_BYTES),
    fsyncIntervalMs: positiveInteger('persistence.fsyncIntervalMs', persistence.fsyncIntervalMs ?? DEFAULT_FSYNC_INTERVAL_MS),
  };
}

/** `persistence.fsync`: the topics' default flush policy (docs/storage.md#flush-policy-fsync). */
function fsyncMode(persistence: PersistenceOptions): FsyncMode {
  return oneOf('persistence.fsync', persistence.fsync ?? DEFAULT_FSYNC_MODE, FSYNC_MODES);
}

function resolveDiskGuard(persistence: PersistenceOptions): ResolvedDiskGuardOptions {
  const guard = optionGroup('persistence.diskGuard', persistence.diskGuard ?? {}, DISK_GUARD_OPTIONS);
  return {
    enabled: oneOf('persistence.diskGuard.enabled', guard.enabled ?? true, [true, false]),
    minFreeBytes: positiveInteger('persistence.diskGuard.minFreeBytes', guard.minFreeBytes ?? DEFAULT_DISK_MIN_FREE_BYTES),
    checkIntervalMs: positiveInteger(
      'persistence.diskGuard.checkIntervalMs',
      guard.checkIntervalMs ?? DEFAULT_DISK_CHECK_INTERVAL_MS,
      MAX_TIMER_MS,
    ),
  };
}

function resolveRetentionCheck(persistence: PersistenceOptions): ResolvedRetentionCheckOptions {
  const retention = optionGroup('persistence.retention', persistence.retention ?? {}, RETENTION_CHECK_OPTIONS);
  return {
    checkIntervalMs: positiveInteger(
      'persistence.retention.checkIntervalMs',
      retention.checkIntervalMs ?? DEFAULT_RETENTION_CHECK_INTERVAL_MS,
      MAX_TIMER_MS,
    ),
  };
}

function resolveTls(tls: MmmqBrokerOptions['tls']): ResolvedTlsOptions | undefined {
  if (tls === undefined) return undefined;
  if (typeof tls !== 'object' || tls === null) {
    throw new InvalidBrokerOptionsError(`tls must be an object { keyFile, certFile }, got ${describe(tls)}`);
  }
  optionGroup('tls', tls, TLS_OPTIONS);
  return {
    keyFile: resolve(nonBlankString('tls.keyFile', tls.keyFile)),
    certFile: resolve(nonBlankString('tls.certFile', tls.certFile)),
  };
}

/** Dispatchers given in code must also have hosts the push-target policy allows (names are checked when resolved). */
function resolveDispatch(dispatchers: unknown, delivery: DeliveryOptions): ResolvedDispatchOptions {
  const resolved = { dispatchers: resolveDispatchers(dispatchers), delivery: resolveDelivery(delivery) };
  const policy = new PushTargetPolicy(resolved.delivery.allowedNetworks);
  resolved.dispatchers.forEach((definition, i) => {
    for (const host of definition.hosts) {
      const refusal = policy.refusalOfHost(host);
      if (refusal) throw new InvalidBrokerOptionsError(`dispatchers[${i}] (${definition.consumerId}): host ${host} is refused: ${refusal}`);
    }
  });
  return resolved;
}

function resolveHttp(given: HttpOptions): ResolvedHttpOptions {
  const http = optionGroup('http', given, HTTP_OPTIONS);
  const headersTimeoutMs = positiveInteger('http.headersTimeoutMs', http.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS, MAX_TIMER_MS);
  const requestTimeoutMs = positiveInteger('http.requestTimeoutMs', http.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, MAX_TIMER_MS);
  // Node refuses a headers timeout above the request timeout: the head is part of the request.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new InvalidBrokerOptionsError(
      `http.headersTimeoutMs (${headersTimeoutMs}) must not exceed http.requestTimeoutMs (${requestTimeoutMs})`,
    );
  }
  return {
    maxBodyBytes: positiveInteger('http.maxBodyBytes', http.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, MAX_BODY_BYTES_LIMIT),
    maxJsonDepth: positiveInteger('http.maxJsonDepth', http.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH),
    maxBatchMessages: positiveInteger('http.maxBatchMessages', http.maxBatchMessages ?? DEFAULT_MAX_BATCH_MESSAGES),
    allowedHosts: list('http.allowedHosts', http.allowedHosts).map((host, i) => normaliseAllowedHost(host, `http.allowedHosts[${i}]`)),
    allowedOrigins: list('http.allowedOrigins', http.allowedOrigins).map((origin, i) =>
      normaliseAllowedOrigin(origin, `http.allowedOrigins[${i}]`),
    ),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: positiveInteger('http.keepAliveTimeoutMs', http.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS, MAX_TIMER_MS),
    maxConnectionsPerIp: positiveInteger('http.maxConnectionsPerIp', http.maxConnectionsPerIp ?? DEFAULT_MAX_CONNECTIONS_PER_IP),
  };
}

function list(name: string, value: unknown): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new InvalidBrokerOptionsError(`${name} must be an array, got ${describe(value)}`);
  return value;
}

function resolveStream(stream: MmmqBrokerOptions['stream']): ResolvedStreamOptions | undefined {
  if (stream === undefined) return undefined;
  if (typeof stream !== 'object' || stream === null) {
    throw new InvalidBrokerOptionsError(`stream must be an object { port, host? }, got ${describe(stream)}`);
  }
  optionGroup('stream', stream, STREAM_OPTIONS);
  const port = nonNegativeInteger('stream.port', stream.port, HOST_PORT_MAX);
  return { port, host: nonBlankString('stream.host', stream.host ?? DEFAULT_STREAM_HOST) };
}

function resolveDispatchers(dispatchers: unknown): DispatcherDefinition[] {
  if (!Array.isArray(dispatchers)) throw new InvalidBrokerOptionsError('dispatchers must be an array');
  const seen = new Set<string>();
  return dispatchers.map((entry, i) => {
    let definition: DispatcherDefinition;
    try {
      definition = parseDispatcherDefinition(entry, `dispatchers[${i}]`);
    } catch (error) {
      throw new InvalidBrokerOptionsError((error as Error).message, { cause: error });
    }
    if (seen.has(definition.consumerId)) {
      throw new InvalidBrokerOptionsError(`dispatchers[${i}]: duplicate consumerId ${definition.consumerId}`);
    }
    seen.add(definition.consumerId);
    return definition;
  });
}

function resolveDelivery(given: DeliveryOptions): ResolvedDeliveryOptions {
  const delivery = optionGroup('delivery', given, DELIVERY_OPTIONS);
  const defaults = DEFAULT_DELIVERY_OPTIONS;
  const backoff = { ...defaults.backoff, ...optionGroup('delivery.backoff', delivery.backoff ?? {}, BACKOFF_OPTIONS) };
  if (typeof backoff.jitter !== 'number' || !(backoff.jitter >= 0 && backoff.jitter < 1)) {
    throw new InvalidBrokerOptionsError(`delivery.backoff.jitter must be a number from 0 to below 1, got ${describe(backoff.jitter)}`);
  }
  if (typeof backoff.multiplier !== 'number' || !(backoff.multiplier >= 1)) {
    throw new InvalidBrokerOptionsError(`delivery.backoff.multiplier must be at least 1, got ${describe(backoff.multiplier)}`);
  }
  const maxSockets = positiveInteger('delivery.maxSockets', delivery.maxSockets ?? defaults.maxSockets);
  const maxSocketsPerHost = positiveInteger(
    'delivery.maxSocketsPerHost',
    delivery.maxSocketsPerHost ?? Math.min(defaults.maxSocketsPerHost, maxSockets),
  );
  if (maxSocketsPerHost > maxSockets) {
    throw new InvalidBrokerOptionsError(
      `delivery.maxSocketsPerHost (${maxSocketsPerHost}) must not exceed delivery.maxSockets (${maxSockets})`,
    );
  }
  return {
    maxSockets,
    maxSocketsPerHost,
    maxNackRetries: nonNegativeInteger('delivery.maxNackRetries', delivery.maxNackRetries ?? defaults.maxNackRetries),
    timeoutMs: positiveInteger('delivery.timeoutMs', delivery.timeoutMs ?? defaults.timeoutMs),
    shutdownGraceMs: nonNegativeInteger('delivery.shutdownGraceMs', delivery.shutdownGraceMs ?? defaults.shutdownGraceMs),
    allowedNetworks: resolveAllowedNetworks(delivery.allowedNetworks ?? defaults.allowedNetworks),
    backoff: {
      initialMs: positiveInteger('delivery.backoff.initialMs', backoff.initialMs),
      maxMs: positiveInteger('delivery.backoff.maxMs', backoff.maxMs),
      multiplier: backoff.multiplier,
      jitter: backoff.jitter,
    },
  };
}

function resolveAllowedNetworks(networks: unknown): readonly string[] {
  if (!Array.isArray(networks)) {
    throw new InvalidBrokerOptionsError(`delivery.allowedNetworks must be an array of strings, got ${describe(networks)}`);
  }
  networks.forEach((entry, i) => {
    try {
      parseAllowedNetwork(entry);
    } catch (error) {
      throw new InvalidBrokerOptionsError(`delivery.allowedNetworks[${i}] ${(error as Error).message}`, { cause: error });
    }
  });
  return [...networks];
}

/**
 * Checks that a group of options (`''` for the top level) is an object holding only known options: a misspelt
 * `persistance` or `segment.maxByte` would otherwise be ignored and its default used without a word.
 */
function optionGroup<T extends object>(name: string, value: T, known: Record<keyof T, true>): T {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidBrokerOptionsError(`${name || 'The broker options'} must be an object, got ${describe(value)}`);
  }
  const unknown = Object.keys(value).find((key) => !Object.hasOwn(known, key));
  if (unknown !== undefined) {
    const names = Object.keys(known).join(', ');
    throw new InvalidBrokerOptionsError(
      name === ''
        ? `Unknown broker option ${unknown}; the options are ${names}`
        : `Unknown option ${name}.${unknown}; the ${name} options are ${names}`,
    );
  }
  return value;
}
