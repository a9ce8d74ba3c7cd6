import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_ROOT_DIR, InvalidBrokerOptionsError } from '@mmmq/broker';
import { DEFAULT_HOST, DEFAULT_HTTP_ADAPTER, DEFAULT_PORT, DEFAULT_STREAM_PORT, readBrokerConfig } from '../src/broker/broker-config';

const SECRET = 'a-secret-token-0123456789';
const TOKEN_ENTRY = { token: SECRET, roles: ['publish'], name: 'producers' };

describe('readBrokerConfig', () => {
  it('defaults to 127.0.0.1:8080, the publish stream on 8081 and ./mmmq, made absolute', () => {
    expect(readBrokerConfig({})).toEqual({
      port: DEFAULT_PORT,
      host: DEFAULT_HOST,
      httpAdapter: DEFAULT_HTTP_ADAPTER,
      broker: {
        persistence: { rootDir: resolve(DEFAULT_ROOT_DIR), segment: undefined },
        stream: { port: DEFAULT_STREAM_PORT, host: DEFAULT_HOST },
        http: {},
        auth: { tokens: [] },
      },
    });
  });

  it('reads the networks pushes may reach from MMMQ_PUSH_ALLOWED_NETWORKS (comma-separated, or none)', () => {
    expect(readBrokerConfig({}).broker.delivery).toBeUndefined();
    expect(readBrokerConfig({ MMMQ_PUSH_ALLOWED_NETWORKS: 'loopback, private,10.1.0.0/16 , fd00::/8' }).broker.delivery).toEqual({
      allowedNetworks: ['loopback', 'private', '10.1.0.0/16', 'fd00::/8'],
    });
    expect(readBrokerConfig({ MMMQ_PUSH_ALLOWED_NETWORKS: 'none' }).broker.delivery).toEqual({ allowedNetworks: [] });
  });

  it('reads the flush policy from MMMQ_FSYNC and MMMQ_FSYNC_INTERVAL_MS, refusing an unknown mode', () => {
    expect(readBrokerConfig({ MMMQ_FSYNC: 'interval', MMMQ_FSYNC_INTERVAL_MS: '250' }).broker.persistence).toMatchObject({
      fsync: 'interval',
      fsyncIntervalMs: 250,
    });
    expect(readBrokerConfig({}).broker.persistence).not.toHaveProperty('fsync');
    expect(() => readBrokerConfig({ MMMQ_FSYNC: 'everysec' })).toThrow('MMMQ_FSYNC must be one of always, interval, never, got "everysec"');
    expect(() => readBrokerConfig({ MMMQ_FSYNC_INTERVAL_MS: '0' })).toThrow(/MMMQ_FSYNC_INTERVAL_MS/);
  });

  it('reads the push connection caps from MMMQ_PUSH_MAX_SOCKETS_PER_HOST and MMMQ_PUSH_MAX_SOCKETS', () => {
    expect(readBrokerConfig({ MMMQ_PUSH_MAX_SOCKETS_PER_HOST: '8', MMMQ_PUSH_MAX_SOCKETS: '32' }).broker.delivery).toEqual({
      maxSocketsPerHost: 8,
      maxSockets: 32,
    });
    expect(readBrokerConfig({ MMMQ_PUSH_ALLOWED_NETWORKS: 'none', MMMQ_PUSH_MAX_SOCKETS: '32' }).broker.delivery).toEqual({
      allowedNetworks: [],
      maxSockets: 32,
    });
    expect(() => readBrokerConfig({ MMMQ_PUSH_MAX_SOCKETS_PER_HOST: '0' })).toThrow(/MMMQ_PUSH_MAX_SOCKETS_PER_HOST/);
  });

  it('turns the disk guard off with MMMQ_DISK_MIN_FREE_BYTES=0, and refuses a check interval of 0', () => {
    expect(readBrokerConfig({ MMMQ_DISK_MIN_FREE_BYTES: '0' }).broker.persistence.diskGuard).toEqual({ enabled: false });
    expect(readBrokerConfig({ MMMQ_DISK_CHECK_INTERVAL_MS: '250' }).broker.persistence.diskGuard).toEqual({ checkIntervalMs: 250 });
    expect(() => readBrokerConfig({ MMMQ_DISK_CHECK_INTERVAL_MS: '0' })).toThrow('MMMQ_DISK_CHECK_INTERVAL_MS must be positive, got 0');
    expect(() => readBrokerConfig({ MMMQ_DISK_MIN_FREE_BYTES: '1G' })).toThrow(InvalidBrokerOptionsError);
  });

  it('reads the retention check interval and the topics option (JSON), naming the variable when either is unusable', () => {
    expect(readBrokerConfig({ MMMQ_RETENTION_CHECK_INTERVAL_MS: '5000' }).broker.persistence.retention).toEqual({ checkIntervalMs: 5000 });
    expect(readBrokerConfig({}).broker.persistence.retention).toBeUndefined();
    const topics = { defaults: { retention: { bytes: 1024 } }, overrides: [{ pattern: 'audit.**', retention: { ms: null } }] };
    expect(readBrokerConfig({ MMMQ_TOPICS: JSON.stringify(topics) }).broker.topics).toEqual(topics);
    expect(readBrokerConfig({}).broker.topics).toBeUndefined();
    expect(() => readBrokerConfig({ MMMQ_RETENTION_CHECK_INTERVAL_MS: '0' })).toThrow(
      'MMMQ_RETENTION_CHECK_INTERVAL_MS must be positive, got 0',
    );
    expect(() => readBrokerConfig({ MMMQ_TOPICS: '{defaults' })).toThrow(/^MMMQ_TOPICS must be JSON/);
    expect(() => readBrokerConfig({ MMMQ_TOPICS: '{"defaults":{"retention":{"bytes":0}}}' })).toThrow(
      'MMMQ_TOPICS: topics.defaults.retention.bytes must be a positive integer, got 0',
    );
  });

  it('reads the memory bounds from MMMQ_*_BYTES, leaving the defaults when unset', () => {
    expect(readBrokerConfig({}).broker.memory).toBeUndefined();
    const env = {
      MMMQ_WINDOW_BYTES: '1048576',
      MMMQ_SUBSCRIPTION_WINDOW_BYTES: '65536',
      MMMQ_RECENT_ENTRIES_BYTES: '0',
      MMMQ_TOPIC_RECENT_ENTRIES_BYTES: '0',
    };
    expect(readBrokerConfig(env).broker.memory).toEqual({
      windowBytes: 1048576,
      subscriptionWindowBytes: 65536,
      recentEntriesBytes: 0,
      topicRecentEntriesBytes: 0,
    });
    expect(() => readBrokerConfig({ MMMQ_WINDOW_BYTES: '0' })).toThrow(/^MMMQ_WINDOW_BYTES must be positive/);
  });

  it('turns the publish stream off with MMMQ_STREAM_PORT=off', () => {
    expect(readBrokerConfig({ MMMQ_STREAM_PORT: 'off' }).broker.stream).toBeUndefined();
  });

  it('turns the admin console off with MMMQ_CONSOLE=off, and leaves it on otherwise', () => {
    expect(readBrokerConfig({ MMMQ_CONSOLE: 'off' }).broker.console).toEqual({ enabled: false });
    expect(readBrokerConfig({ MMMQ_CONSOLE: 'on' }).broker.console).toBeUndefined();
    expect(readBrokerConfig({}).broker.console).toBeUndefined();
  });

  it('reads the metrics and health endpoints from MMMQ_METRICS(_PATH) and MMMQ_HEALTH(_PATH), leaving the defaults when unset', () => {
    expect(readBrokerConfig({}).broker.metrics).toBeUndefined();
    expect(readBrokerConfig({}).broker.health).toBeUndefined();
    expect(readBrokerConfig({ MMMQ_METRICS: 'off' }).broker.metrics).toEqual({ enabled: false });
    expect(readBrokerConfig({ MMMQ_METRICS: 'on' }).broker.metrics).toEqual({ enabled: true });
    expect(readBrokerConfig({ MMMQ_METRICS_PATH: 'internal/prometheus' }).broker.metrics).toEqual({
      enabled: true,
      path: 'internal/prometheus',
    });
    expect(readBrokerConfig({ MMMQ_HEALTH: 'off' }).broker.health).toEqual({ enabled: false });
    expect(readBrokerConfig({ MMMQ_HEALTH: 'on', MMMQ_HEALTH_PATH: 'probes' }).broker.health).toEqual({ enabled: true, path: 'probes' });
  });

  it('reads every variable', () => {
    const env = {
      MMMQ_PORT: '0',
      MMMQ_HOST: '0.0.0.0',
      MMMQ_STREAM_PORT: '9091',
      MMMQ_HTTP_ADAPTER: 'express',
      MMMQ_ROOT_DIR: '/srv/q',
      MMMQ_SEGMENT_MAX_BYTES: '4096',
      MMMQ_FLUSH_INTERVAL_MS: '2000',
      MMMQ_FLUSH_BYTES: '1048576',
      MMMQ_DISK_MIN_FREE_BYTES: '1073741824',
      MMMQ_DISK_CHECK_INTERVAL_MS: '500',
      MMMQ_AUTH_TOKENS: JSON.stringify([TOKEN_ENTRY]),
      MMMQ_HTTP_ALLOWED_HOSTS: 'broker.internal, mmmq.example.com,',
      MMMQ_HTTP_ALLOWED_ORIGINS: 'https://console.example.com',
      MMMQ_HTTP_HEADERS_TIMEOUT_MS: '5000',
      MMMQ_HTTP_REQUEST_TIMEOUT_MS: '60000',
      MMMQ_HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000',
      MMMQ_HTTP_MAX_CONNECTIONS_PER_IP: '32',
    };
    expect(readBrokerConfig(env)).toEqual({
      port: 0,
      host: '0.0.0.0',
      httpAdapter: 'express',
      broker: {
        persistence: {
          rootDir: '/srv/q',
          segment: { maxBytes: 4096 },
          flush: { intervalMs: 2000, bytes: 1048576 },
          diskGuard: { minFreeBytes: 1073741824, checkIntervalMs: 500 },
        },
        stream: { port: 9091, host: '0.0.0.0' },
        http: {
          allowedHosts: ['broker.internal', 'mmmq.example.com'],
          allowedOrigins: ['https://console.example.com'],
          headersTimeoutMs: 5000,
          requestTimeoutMs: 60000,
          keepAliveTimeoutMs: 65000,
          maxConnectionsPerIp: 32,
        },
        auth: { tokens: [TOKEN_ENTRY] },
      },
    });
  });

  it('reads the tokens from the file MMMQ_AUTH_TOKENS_FILE names', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmmq-tokens-'));
    try {
      const file = join(dir, 'tokens.json');
      writeFileSync(file, JSON.stringify([TOKEN_ENTRY, { token: 'second-token-0123456789', roles: ['admin'] }]));
      expect(readBrokerConfig({ MMMQ_AUTH_TOKENS_FILE: file }).broker.auth?.tokens).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the consumer ids a consume token is limited to, and refuses them on an admin token naming the entry', () => {
    const scoped = { token: SECRET, roles: ['consume'], consumers: ['billing.*'], name: 'billing' };
    expect(readBrokerConfig({ MMMQ_AUTH_TOKENS: JSON.stringify([scoped]) }).broker.auth?.tokens).toEqual([scoped]);
    expect(() => readBrokerConfig({ MMMQ_AUTH_TOKENS: JSON.stringify([{ ...scoped, roles: ['admin'] }]) })).toThrow(
      /^MMMQ_AUTH_TOKENS\[0\]\.consumers limits the consumer ids a token acts for, but the token has the admin role/,
    );
  });

  it.each(['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]'])('binds the loopback host %s without tokens', (host) => {
    expect(readBrokerConfig({ MMMQ_HOST: host }).host).toBe(host);
  });

  it.each(['0.0.0.0', '::', '192.0.2.2', 'broker.internal'])(
    'refuses to bind %s, which other machines can reach, without tokens, naming the variables',
    (host) => {
      expect(() => readBrokerConfig({ MMMQ_HOST: host })).toThrow(
        new RegExp(
          `^MMMQ_HOST=${host.replace(/\./g, '\\.')} lets other machines reach the broker, but no tokens are configured: set MMMQ_AUTH_TOKENS or MMMQ_AUTH_TOKENS_FILE`,
        ),
      );
    },
  );

  it.each([
    [{ MMMQ_AUTH_TOKENS: '[]', MMMQ_AUTH_TOKENS_FILE: '/x' }, /^Set MMMQ_AUTH_TOKENS or MMMQ_AUTH_TOKENS_FILE, not both$/],
    [{ MMMQ_AUTH_TOKENS: `[{"token":"${SECRET}",}]` }, /^MMMQ_AUTH_TOKENS is not valid JSON \(at position \d+\); expected an array/],
    [{ MMMQ_AUTH_TOKENS: `[{"token":"${SECRET}","roles":["root"]}]` }, /^MMMQ_AUTH_TOKENS\[0\]\.roles holds "root"/],
    [{ MMMQ_AUTH_TOKENS: `{"token":"${SECRET}"}` }, /^MMMQ_AUTH_TOKENS must be an array/],
    [{ MMMQ_AUTH_TOKENS_FILE: '/nonexistent/tokens.json' }, /^MMMQ_AUTH_TOKENS_FILE names a file that cannot be read: ENOENT/],
    [{ MMMQ_HTTP_HEADERS_TIMEOUT_MS: '0' }, /^MMMQ_HTTP_HEADERS_TIMEOUT_MS must be positive, got 0$/],
    [{ MMMQ_HTTP_MAX_CONNECTIONS_PER_IP: 'many' }, /^MMMQ_HTTP_MAX_CONNECTIONS_PER_IP must be a non-negative integer, got "many"$/],
  ])('refuses %j, naming the variable and quoting no token', (env, message) => {
    expect(() => readBrokerConfig(env)).toThrow(message);
    expect(() => readBrokerConfig(env)).not.toThrow(SECRET);
  });

  it.each([
    [{ MMMQ_PORT: 'http' }, /^MMMQ_PORT must be a non-negative integer, got "http"$/],
    [{ MMMQ_PORT: '-1' }, /^MMMQ_PORT must be/],
    [{ MMMQ_PORT: '65536' }, /^MMMQ_PORT must be a port number from 0 to 65535, got 65536$/],
    [{ MMMQ_STREAM_PORT: 'on' }, /^MMMQ_STREAM_PORT must be a non-negative integer, got "on"$/],
    [{ MMMQ_STREAM_PORT: '70000' }, /^MMMQ_STREAM_PORT must be a port number from 0 to 65535, got 70000$/],
    [{ MMMQ_HOST: '' }, /^MMMQ_HOST must not be blank$/],
    [{ MMMQ_HTTP_ADAPTER: 'koa' }, /^MMMQ_HTTP_ADAPTER must be express or fastify, got "koa"$/],
    [{ MMMQ_CONSOLE: 'false' }, /^MMMQ_CONSOLE must be on or off, got "false"$/],
    [{ MMMQ_METRICS: 'yes' }, /^MMMQ_METRICS must be on or off, got "yes"$/],
    [{ MMMQ_HEALTH: '0' }, /^MMMQ_HEALTH must be on or off, got "0"$/],
    [{ MMMQ_METRICS: 'off', MMMQ_METRICS_PATH: 'prom' }, /^MMMQ_METRICS_PATH is set, but MMMQ_METRICS=off$/],
    [{ MMMQ_METRICS_PATH: '/metrics' }, /^MMMQ_METRICS_PATH: metrics\.path must be path segments .* got "\/metrics"$/],
    [{ MMMQ_HEALTH_PATH: 'a//b' }, /^MMMQ_HEALTH_PATH: health\.path must be path segments/],
    [{ MMMQ_ROOT_DIR: '  ' }, /^MMMQ_ROOT_DIR must not be blank$/],
    [{ MMMQ_SEGMENT_MAX_BYTES: '64MB' }, /^MMMQ_SEGMENT_MAX_BYTES must be a non-negative integer, got "64MB"$/],
    [{ MMMQ_SEGMENT_MAX_BYTES: '0' }, /^MMMQ_SEGMENT_MAX_BYTES must be positive/],
    [{ MMMQ_PUSH_ALLOWED_NETWORKS: ' ' }, /^MMMQ_PUSH_ALLOWED_NETWORKS must not be blank$/],
    [
      { MMMQ_PUSH_ALLOWED_NETWORKS: 'loopback,,private' },
      /^MMMQ_PUSH_ALLOWED_NETWORKS entry "" must be "loopback", "private", an IP address or a CIDR/,
    ],
    [
      { MMMQ_PUSH_ALLOWED_NETWORKS: 'loopback,10.0.0.0/33' },
      /^MMMQ_PUSH_ALLOWED_NETWORKS entry "10\.0\.0\.0\/33" .* has a prefix longer than 32 bits/,
    ],
    [{ MMMQ_PUSH_ALLOWED_NETWORKS: 'lan' }, /^MMMQ_PUSH_ALLOWED_NETWORKS entry "lan" must be/],
  ])('refuses %j naming the variable', (env, message) => {
    expect(() => readBrokerConfig(env)).toThrow(InvalidBrokerOptionsError);
    expect(() => readBrokerConfig(env)).toThrow(message);
  });
});
