import { resolve } from 'node:path';
import { FSYNC_MODES, FsyncMode, HOST_PORT_MAX } from '@mmmq/core';
import {
  DEFAULT_ROOT_DIR,
  HealthOptions,
  HttpOptions,
  InvalidBrokerOptionsError,
  MetricsOptions,
  MmmqBrokerOptions,
  PersistenceOptions,
  TlsOptions,
} from '@mmmq/broker';
import { isLoopbackHost, parseAllowedNetwork } from '@mmmq/broker/internal';
import { AUTH_TOKENS_FILE_VARIABLE, AUTH_TOKENS_VARIABLE, readAuthTokens } from './auth-tokens-env';
import { readHealth, readMetrics } from './metrics-health-env';
import { readTopics } from './topics-env';

/** Port the standalone broker listens on when `MMMQ_PORT` is unset. */
export const DEFAULT_PORT = 8080;
/** Interface the standalone broker binds when `MMMQ_HOST` is unset; loopback, so nothing is exposed by accident. */
export const DEFAULT_HOST = '127.0.0.1';

/** Port of the publish stream (`mmmq://`) when `MMMQ_STREAM_PORT` is unset; `off` disables the stream. */
export const DEFAULT_STREAM_PORT = 8081;
const STREAM_OFF = 'off';
/** `MMMQ_PUSH_ALLOWED_NETWORKS=none`: no private or loopback address at all. */
const NO_NETWORKS = 'none';

const DIGITS = /^\d+$/;

/** The standalone broker's settings, read from the environment. */
/** The HTTP platforms the standalone broker runs on. */
export type HttpAdapterName = 'express' | 'fastify';
/** The platform measured faster for publishing on this machine (docs/performance.md). */
export const DEFAULT_HTTP_ADAPTER: HttpAdapterName = 'fastify';

export interface BrokerConfig {
  /** 0 picks a free port. */
  port: number;
  host: string;
  /** `MMMQ_HTTP_ADAPTER`. */
  httpAdapter: HttpAdapterName;
  broker: StandaloneBrokerOptions;
}

/** What `MmmqBrokerModule.forRoot` gets: the broker options and the module-shaping `metrics` and `health`. */
export type StandaloneBrokerOptions = MmmqBrokerOptions & {
  persistence: { rootDir: string };
  metrics?: MetricsOptions;
  health?: HealthOptions;
};

/**
 * Reads `MMMQ_PORT`, `MMMQ_HOST`, `MMMQ_STREAM_PORT`, `MMMQ_HTTP_ADAPTER`, `MMMQ_ROOT_DIR` (made absolute),
 * `MMMQ_SEGMENT_MAX_BYTES`, the flush, disk guard and retention check settings, `MMMQ_TOPICS`, the limits (`MMMQ_MAX_*`), the memory bounds (`MMMQ_*_BYTES`), the `MMMQ_HTTP_*` limits, the tokens (`MMMQ_AUTH_TOKENS` or `MMMQ_AUTH_TOKENS_FILE`),
 * `MMMQ_TLS_KEY_FILE` / `MMMQ_TLS_CERT_FILE`, the push settings (`MMMQ_PUSH_*`), `MMMQ_CONSOLE`, and the metrics and health
 * endpoints (`MMMQ_METRICS`, `MMMQ_METRICS_PATH`, `MMMQ_HEALTH`, `MMMQ_HEALTH_PATH`).
 *
 * @throws InvalidBrokerOptionsError naming the variable that is set to something unusable, and when `MMMQ_HOST`
 *   exposes the broker beyond this machine without tokens
 */
export function readBrokerConfig(env: NodeJS.ProcessEnv): BrokerConfig {
  const port = portNumber(env, 'MMMQ_PORT');
  const host = nonBlank(env, 'MMMQ_HOST') ?? DEFAULT_HOST;
  const tokens = readAuthTokens(env);
  if (tokens.length === 0 && !isLoopbackHost(host)) {
    throw new InvalidBrokerOptionsError(
      `MMMQ_HOST=${host} lets other machines reach the broker, but no tokens are configured: set ${AUTH_TOKENS_VARIABLE} ` +
        `or ${AUTH_TOKENS_FILE_VARIABLE} (docs/security.md), or bind MMMQ_HOST to a loopback address such as ${DEFAULT_HOST}`,
    );
  }
  const streamPort = env.MMMQ_STREAM_PORT === STREAM_OFF ? undefined : (portNumber(env, 'MMMQ_STREAM_PORT') ?? DEFAULT_STREAM_PORT);
  const segmentMaxBytes = integer(env, 'MMMQ_SEGMENT_MAX_BYTES');
  if (segmentMaxBytes === 0) throw new InvalidBrokerOptionsError('MMMQ_SEGMENT_MAX_BYTES must be positive, got 0');
  const flushIntervalMs = integer(env, 'MMMQ_FLUSH_INTERVAL_MS');
  const flushBytes = integer(env, 'MMMQ_FLUSH_BYTES');
  const flush = flushIntervalMs === undefined && flushBytes === undefined ? undefined : { intervalMs: flushIntervalMs, bytes: flushBytes };
  const retentionCheckIntervalMs = positive(env, 'MMMQ_RETENTION_CHECK_INTERVAL_MS');
  const topics = readTopics(env);
  const metrics = readMetrics(env);
  const health = readHealth(env);
  return {
    port: port ?? DEFAULT_PORT,
    host,
    httpAdapter: httpAdapter(env),
    broker: {
      persistence: {
        rootDir: resolve(nonBlank(env, 'MMMQ_ROOT_DIR') ?? DEFAULT_ROOT_DIR),
        segment: segmentMaxBytes === undefined ? undefined : { maxBytes: segmentMaxBytes },
        flush,
        ...fsyncOptions(env),
        diskGuard: diskGuard(env),
        retention: retentionCheckIntervalMs === undefined ? undefined : { checkIntervalMs: retentionCheckIntervalMs },
      },
      ...(topics === undefined ? {} : { topics }),
      ...limitsOptions(env),
      ...memoryOptions(env),
      stream: streamPort === undefined ? undefined : { port: streamPort, host },
      tls: tlsFiles(env),
      ...deliveryOptions(env),
      http: httpOptions(env),
      auth: { tokens },
      ...(consoleEnabled(env) ? {} : { console: { enabled: false } }),
      ...(metrics === undefined ? {} : { metrics }),
      ...(health === undefined ? {} : { health }),
    },
  };
}

/**
 * `MMMQ_WINDOW_BYTES`, `MMMQ_SUBSCRIPTION_WINDOW_BYTES`, `MMMQ_RECENT_ENTRIES_BYTES`, `MMMQ_TOPIC_RECENT_ENTRIES_BYTES`:
 * the broker's `memory` bounds (docs/delivery.md#memory); unset ones keep their defaults.
 */
function memoryOptions(env: NodeJS.ProcessEnv): Pick<MmmqBrokerOptions, 'memory'> {
  const memory = Object.fromEntries(
    Object.entries({
      windowBytes: positive(env, 'MMMQ_WINDOW_BYTES'),
      subscriptionWindowBytes: positive(env, 'MMMQ_SUBSCRIPTION_WINDOW_BYTES'),
      // 0: no recent entries, every read goes to disk.
      recentEntriesBytes: integer(env, 'MMMQ_RECENT_ENTRIES_BYTES'),
      topicRecentEntriesBytes: integer(env, 'MMMQ_TOPIC_RECENT_ENTRIES_BYTES'),
    }).filter(([, value]) => value !== undefined),
  );
  return Object.keys(memory).length === 0 ? {} : { memory };
}

/**
 * `MMMQ_MAX_TOPICS`, `MMMQ_MAX_DISPATCHERS`, `MMMQ_MAX_SUBSCRIPTIONS`, `MMMQ_MAX_OPEN_FILES`, `MMMQ_MAX_DELAY_MS`: the broker's `limits`
 * (docs/operations.md#descriptors-and-caps); unset ones keep their defaults.
 */
function limitsOptions(env: NodeJS.ProcessEnv): Pick<MmmqBrokerOptions, 'limits'> {
  const limits = Object.fromEntries(
    Object.entries({
      maxTopics: positive(env, 'MMMQ_MAX_TOPICS'),
      maxDispatchers: positive(env, 'MMMQ_MAX_DISPATCHERS'),
      maxSubscriptions: positive(env, 'MMMQ_MAX_SUBSCRIPTIONS'),
      maxOpenFiles: positive(env, 'MMMQ_MAX_OPEN_FILES'),
      maxDelayMs: positive(env, 'MMMQ_MAX_DELAY_MS'),
    }).filter(([, value]) => value !== undefined),
  );
  return Object.keys(limits).length === 0 ? {} : { limits };
}

/**
 * `MMMQ_PUSH_ALLOWED_NETWORKS`, `MMMQ_PUSH_MAX_SOCKETS_PER_HOST`, `MMMQ_PUSH_MAX_SOCKETS`: the broker's `delivery`
 * options (docs/delivery.md#connections); unset ones keep their defaults.
 */
function deliveryOptions(env: NodeJS.ProcessEnv): Pick<MmmqBrokerOptions, 'delivery'> {
  const delivery = Object.fromEntries(
    Object.entries({
      allowedNetworks: pushAllowedNetworks(env),
      maxSocketsPerHost: positive(env, 'MMMQ_PUSH_MAX_SOCKETS_PER_HOST'),
      maxSockets: positive(env, 'MMMQ_PUSH_MAX_SOCKETS'),
    }).filter(([, value]) => value !== undefined),
  );
  return Object.keys(delivery).length === 0 ? {} : { delivery };
}

/** `MMMQ_CONSOLE`: `on` (default) or `off`, the admin web console (docs/operations.md#console). */
function consoleEnabled(env: NodeJS.ProcessEnv): boolean {
  const value = env.MMMQ_CONSOLE;
  if (value === undefined || value === 'on') return true;
  if (value === 'off') return false;
  throw new InvalidBrokerOptionsError(`MMMQ_CONSOLE must be on or off, got ${JSON.stringify(value)}`);
}

/** `MMMQ_FSYNC` (`always`, `interval`, `never`) and `MMMQ_FSYNC_INTERVAL_MS`: the flush policy (docs/storage.md#flush-policy-fsync). */
function fsyncOptions(env: NodeJS.ProcessEnv): Pick<PersistenceOptions, 'fsync' | 'fsyncIntervalMs'> {
  const fsync = nonBlank(env, 'MMMQ_FSYNC');
  if (fsync !== undefined && !FSYNC_MODES.includes(fsync as FsyncMode)) {
    throw new InvalidBrokerOptionsError(`MMMQ_FSYNC must be one of ${FSYNC_MODES.join(', ')}, got ${JSON.stringify(fsync)}`);
  }
  const fsyncIntervalMs = positive(env, 'MMMQ_FSYNC_INTERVAL_MS');
  return {
    ...(fsync === undefined ? {} : { fsync: fsync as FsyncMode }),
    ...(fsyncIntervalMs === undefined ? {} : { fsyncIntervalMs }),
  };
}

/** `MMMQ_DISK_MIN_FREE_BYTES=0` turns the guard off. */
function diskGuard(env: NodeJS.ProcessEnv): PersistenceOptions['diskGuard'] {
  const minFreeBytes = integer(env, 'MMMQ_DISK_MIN_FREE_BYTES');
  const checkIntervalMs = positive(env, 'MMMQ_DISK_CHECK_INTERVAL_MS');
  if (minFreeBytes === 0) return { enabled: false };
  if (minFreeBytes === undefined && checkIntervalMs === undefined) return undefined;
  return Object.fromEntries(Object.entries({ minFreeBytes, checkIntervalMs }).filter(([, value]) => value !== undefined));
}

/** Both files or neither: a key without its certificate (or the reverse) is a mistake, not a choice. */
function tlsFiles(env: NodeJS.ProcessEnv): TlsOptions | undefined {
  const keyFile = nonBlank(env, 'MMMQ_TLS_KEY_FILE');
  const certFile = nonBlank(env, 'MMMQ_TLS_CERT_FILE');
  if (keyFile === undefined && certFile === undefined) return undefined;
  if (keyFile === undefined || certFile === undefined) {
    const missing = keyFile === undefined ? 'MMMQ_TLS_KEY_FILE' : 'MMMQ_TLS_CERT_FILE';
    throw new InvalidBrokerOptionsError(`${missing} must be set too: TLS needs MMMQ_TLS_KEY_FILE and MMMQ_TLS_CERT_FILE`);
  }
  return { keyFile: resolve(keyFile), certFile: resolve(certFile) };
}

/** `MMMQ_PUSH_ALLOWED_NETWORKS`: comma-separated `loopback`, `private`, IP addresses and CIDRs, or `none`. */
function pushAllowedNetworks(env: NodeJS.ProcessEnv): string[] | undefined {
  const value = nonBlank(env, 'MMMQ_PUSH_ALLOWED_NETWORKS');
  if (value === undefined) return undefined;
  if (value.trim() === NO_NETWORKS) return [];
  const entries = value.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    try {
      parseAllowedNetwork(entry);
    } catch (error) {
      throw new InvalidBrokerOptionsError(
        `MMMQ_PUSH_ALLOWED_NETWORKS entry ${JSON.stringify(entry)} ${(error as Error).message}; ` +
          `give comma-separated entries, or "${NO_NETWORKS}"`,
        { cause: error },
      );
    }
  }
  return entries;
}

/** The `MMMQ_HTTP_*` variables that are set; the module's defaults apply to the rest. */
function httpOptions(env: NodeJS.ProcessEnv): HttpOptions {
  const options: HttpOptions = {
    allowedHosts: list(env, 'MMMQ_HTTP_ALLOWED_HOSTS'),
    allowedOrigins: list(env, 'MMMQ_HTTP_ALLOWED_ORIGINS'),
    headersTimeoutMs: positive(env, 'MMMQ_HTTP_HEADERS_TIMEOUT_MS'),
    requestTimeoutMs: positive(env, 'MMMQ_HTTP_REQUEST_TIMEOUT_MS'),
    keepAliveTimeoutMs: positive(env, 'MMMQ_HTTP_KEEP_ALIVE_TIMEOUT_MS'),
    maxConnectionsPerIp: positive(env, 'MMMQ_HTTP_MAX_CONNECTIONS_PER_IP'),
  };
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

/** A comma-separated list; blank entries are ignored. */
function list(env: NodeJS.ProcessEnv, name: string): string[] | undefined {
  const value = env[name];
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

function positive(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = integer(env, name);
  if (value === 0) throw new InvalidBrokerOptionsError(`${name} must be positive, got 0`);
  return value;
}

function httpAdapter(env: NodeJS.ProcessEnv): HttpAdapterName {
  const value = env.MMMQ_HTTP_ADAPTER;
  if (value === undefined) return DEFAULT_HTTP_ADAPTER;
  if (value === 'express' || value === 'fastify') return value;
  throw new InvalidBrokerOptionsError(`MMMQ_HTTP_ADAPTER must be express or fastify, got ${JSON.stringify(value)}`);
}

function portNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const port = integer(env, name);
  if (port !== undefined && port > HOST_PORT_MAX) {
    throw new InvalidBrokerOptionsError(`${name} must be a port number from 0 to ${HOST_PORT_MAX}, got ${port}`);
  }
  return port;
}

function nonBlank(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  if (value !== undefined && value.trim() === '') throw new InvalidBrokerOptionsError(`${name} must not be blank`);
  return value;
}

function integer(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name];
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!DIGITS.test(text) || !Number.isSafeInteger(value)) {
    throw new InvalidBrokerOptionsError(`${name} must be a non-negative integer, got ${JSON.stringify(text)}`);
  }
  return value;
}
