import { resolve } from 'node:path';
import { InvalidBrokerOptionsError } from '../src/config/invalid-broker-options.error';
import { MAX_BODY_BYTES_LIMIT, resolveBrokerOptions } from '../src/mmmq-broker-options.resolver';
import {
  DEFAULT_MAX_DISPATCHERS,
  DEFAULT_MAX_SUBSCRIPTIONS,
  DEFAULT_MAX_DELAY_MS,
  DEFAULT_MAX_TOPICS,
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
  DEFAULT_FLUSH_INTERVAL_MS,
  DEFAULT_SEGMENT_MAX_BYTES,
  DEFAULT_DISK_CHECK_INTERVAL_MS,
  DEFAULT_DISK_MIN_FREE_BYTES,
  DEFAULT_RETENTION_CHECK_INTERVAL_MS,
  MmmqBrokerOptions,
} from '../src/mmmq-broker.options';
import { DEFAULT_DELIVERY_OPTIONS } from '../src/dispatch/delivery.options';
import { defaultMaxOpenFiles, readNofileLimit } from '../src/storage/descriptor-pool';
import { DEFAULT_TOPIC_POLICY } from '../src/topics/topic-policy.options';

describe('resolveBrokerOptions', () => {
  it('fills every default, with an absolute root directory', () => {
    expect(resolveBrokerOptions()).toEqual({
      persistence: {
        rootDir: resolve(DEFAULT_ROOT_DIR),
        segmentMaxBytes: DEFAULT_SEGMENT_MAX_BYTES,
        flushIntervalMs: DEFAULT_FLUSH_INTERVAL_MS,
        flushBytes: DEFAULT_FLUSH_BYTES,
        fsyncIntervalMs: DEFAULT_FSYNC_INTERVAL_MS,
      },
      diskGuard: { enabled: true, minFreeBytes: DEFAULT_DISK_MIN_FREE_BYTES, checkIntervalMs: DEFAULT_DISK_CHECK_INTERVAL_MS },
      retention: { checkIntervalMs: DEFAULT_RETENTION_CHECK_INTERVAL_MS },
      http: {
        maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
        maxJsonDepth: DEFAULT_MAX_JSON_DEPTH,
        maxBatchMessages: DEFAULT_MAX_BATCH_MESSAGES,
        allowedHosts: [],
        allowedOrigins: [],
        headersTimeoutMs: DEFAULT_HEADERS_TIMEOUT_MS,
        requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
        keepAliveTimeoutMs: DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
        maxConnectionsPerIp: DEFAULT_MAX_CONNECTIONS_PER_IP,
      },
      stream: undefined,
      dispatch: { dispatchers: [], delivery: DEFAULT_DELIVERY_OPTIONS },
      auth: { tokens: [] },
      topics: { defaults: DEFAULT_TOPIC_POLICY, overrides: [] },
      console: { enabled: true },
      limits: {
        maxTopics: DEFAULT_MAX_TOPICS,
        maxDispatchers: DEFAULT_MAX_DISPATCHERS,
        maxSubscriptions: DEFAULT_MAX_SUBSCRIPTIONS,
        maxDelayMs: DEFAULT_MAX_DELAY_MS,
        maxOpenFiles: defaultMaxOpenFiles(),
      },
      memory: {
        windowBytes: 128 * 1024 * 1024,
        subscriptionWindowBytes: 16 * 1024 * 1024,
        recentEntriesBytes: 64 * 1024 * 1024,
        topicRecentEntriesBytes: 8 * 1024 * 1024,
      },
    });
  });

  it('takes the caps and the descriptor budget under limits, naming a bad or unknown one', () => {
    expect(
      resolveBrokerOptions({ limits: { maxTopics: 3, maxDispatchers: 2, maxSubscriptions: 9, maxDelayMs: 60_000, maxOpenFiles: 64 } })
        .limits,
    ).toEqual({
      maxTopics: 3,
      maxDispatchers: 2,
      maxSubscriptions: 9,
      maxDelayMs: 60_000,
      maxOpenFiles: 64,
    });
    expect(() => resolveBrokerOptions({ limits: { maxDelayMs: -1 } })).toThrow(/limits\.maxDelayMs/);
    expect(() => resolveBrokerOptions({ limits: { maxTopic: 3 } as never })).toThrow(/Unknown option limits\.maxTopic;/);
    expect(() => resolveBrokerOptions({ limits: { maxOpenFiles: 2 } })).toThrow(/limits\.maxOpenFiles must be at least 8, got 2/);
    expect(() => resolveBrokerOptions({ limits: { maxDispatchers: 0 } })).toThrow(InvalidBrokerOptionsError);
    expect(() => resolveBrokerOptions({ limits: { maxSubscriptions: 1.5 } })).toThrow(/limits\.maxSubscriptions/);
  });

  it('takes the memory bounds under memory, with their defaults, naming a bad or unknown one', () => {
    expect(resolveBrokerOptions({}).memory).toEqual({
      windowBytes: 128 * 1024 * 1024,
      subscriptionWindowBytes: 16 * 1024 * 1024,
      recentEntriesBytes: 64 * 1024 * 1024,
      topicRecentEntriesBytes: 8 * 1024 * 1024,
    });
    // A broker-wide bound below a default per-subscription or per-topic one lowers it too.
    expect(resolveBrokerOptions({ memory: { windowBytes: 1024, recentEntriesBytes: 0 } }).memory).toEqual({
      windowBytes: 1024,
      subscriptionWindowBytes: 1024,
      recentEntriesBytes: 0,
      topicRecentEntriesBytes: 0,
    });
    expect(() => resolveBrokerOptions({ memory: { windowByte: 3 } as never })).toThrow(/Unknown option memory\.windowByte;/);
    expect(() => resolveBrokerOptions({ memory: { subscriptionWindowBytes: 0 } })).toThrow(/memory\.subscriptionWindowBytes/);
    expect(() => resolveBrokerOptions({ memory: { recentEntriesBytes: -1 } })).toThrow(/memory\.recentEntriesBytes/);
    expect(() => resolveBrokerOptions({ memory: { windowBytes: 1000, subscriptionWindowBytes: 2000 } })).toThrow(
      /memory\.subscriptionWindowBytes \(2000\) must be at most memory\.windowBytes \(1000\)/,
    );
  });

  it('sizes the default descriptor budget from RLIMIT_NOFILE, keeping a reserve for sockets', () => {
    expect(
      readNofileLimit(
        () =>
          'Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 4096                 files\n',
      ),
    ).toEqual({
      soft: 1024,
      hard: 4096,
    });
    expect(
      readNofileLimit(() => {
        throw new Error('ENOENT');
      }),
    ).toBeUndefined();
    expect(defaultMaxOpenFiles(1024)).toBe(768);
    expect(defaultMaxOpenFiles(20_000)).toBe(15_904);
    expect(defaultMaxOpenFiles(1_048_576)).toBe(32_768);
    expect(defaultMaxOpenFiles(100)).toBe(8);
  });

  it('takes the disk guard settings under persistence.diskGuard, naming a bad or unknown one', () => {
    expect(
      resolveBrokerOptions({ persistence: { diskGuard: { enabled: false, minFreeBytes: 1024, checkIntervalMs: 50 } } }).diskGuard,
    ).toEqual({
      enabled: false,
      minFreeBytes: 1024,
      checkIntervalMs: 50,
    });
    const invalid: [unknown, string][] = [
      [{ minFreeBytes: 0 }, 'persistence.diskGuard.minFreeBytes must be a positive integer, got 0'],
      [{ checkIntervalMs: 1.5 }, 'persistence.diskGuard.checkIntervalMs must be a positive integer, got 1.5'],
      [{ enabled: 'yes' }, 'persistence.diskGuard.enabled must be one of true, false, got "yes"'],
      [
        { minFreeByte: 1 },
        'Unknown option persistence.diskGuard.minFreeByte; the persistence.diskGuard options are enabled, minFreeBytes, checkIntervalMs',
      ],
      ['on', 'persistence.diskGuard must be an object, got "on"'],
    ];
    for (const [diskGuard, message] of invalid) {
      const options = { persistence: { diskGuard } } as MmmqBrokerOptions;
      expect(() => resolveBrokerOptions(options)).toThrow(InvalidBrokerOptionsError);
      expect(() => resolveBrokerOptions(options)).toThrow(message);
    }
  });

  it("takes the flush policy from persistence.fsync (the topics' default) and its interval, naming a bad value", () => {
    const resolved = resolveBrokerOptions({ persistence: { fsync: 'interval', fsyncIntervalMs: 250 } });
    expect(resolved.persistence.fsyncIntervalMs).toBe(250);
    expect(resolved.topics.defaults.fsync).toBe('interval');
    expect(resolveBrokerOptions({}).topics.defaults.fsync).toBe('always');
    expect(resolveBrokerOptions({}).persistence.fsyncIntervalMs).toBe(1000);
    const invalid: [MmmqBrokerOptions['persistence'], string][] = [
      [{ fsync: 'everysec' as never }, 'persistence.fsync must be one of "always", "interval", "never", got "everysec"'],
      [{ fsyncIntervalMs: 0 }, 'persistence.fsyncIntervalMs must be a positive integer, got 0'],
    ];
    for (const [persistence, message] of invalid) expect(() => resolveBrokerOptions({ persistence })).toThrow(message);
  });

  it('takes the retention check interval under persistence.retention, naming a bad or unknown option', () => {
    expect(resolveBrokerOptions({ persistence: { retention: { checkIntervalMs: 500 } } }).retention).toEqual({ checkIntervalMs: 500 });
    const invalid: [unknown, string][] = [
      [{ checkIntervalMs: 0 }, 'persistence.retention.checkIntervalMs must be a positive integer, got 0'],
      [{ checkIntervalMs: 2 ** 31 }, 'persistence.retention.checkIntervalMs'],
      [{ intervalMs: 1 }, 'Unknown option persistence.retention.intervalMs; the persistence.retention options are checkIntervalMs'],
      [5, 'persistence.retention must be an object, got 5'],
    ];
    for (const [retention, message] of invalid) {
      const options = { persistence: { retention } } as MmmqBrokerOptions;
      expect(() => resolveBrokerOptions(options)).toThrow(InvalidBrokerOptionsError);
      expect(() => resolveBrokerOptions(options)).toThrow(message);
    }
  });

  it('turns the console on by default, off with console.enabled false, naming a bad or unknown option', () => {
    expect(resolveBrokerOptions({}).console).toEqual({ enabled: true });
    expect(resolveBrokerOptions({ console: { enabled: false } }).console).toEqual({ enabled: false });
    const invalid: [unknown, string][] = [
      [{ enabled: 'no' }, 'console.enabled must be one of true, false, got "no"'],
      [{ enable: false }, 'Unknown option console.enable; the console options are enabled'],
      [false, 'console must be an object, got false'],
    ];
    for (const [console, message] of invalid) {
      const options = { console } as MmmqBrokerOptions;
      expect(() => resolveBrokerOptions(options)).toThrow(InvalidBrokerOptionsError);
      expect(() => resolveBrokerOptions(options)).toThrow(message);
    }
  });

  it('turns the publish stream on with a port, on loopback unless a host is given', () => {
    expect(resolveBrokerOptions({ stream: { port: 0 } }).stream).toEqual({ port: 0, host: '127.0.0.1' });
    expect(resolveBrokerOptions({ stream: { port: 8081, host: '0.0.0.0' } }).stream).toEqual({ port: 8081, host: '0.0.0.0' });
  });

  it('keeps the values given', () => {
    const resolved = resolveBrokerOptions({
      persistence: { rootDir: '/data/mmmq', segment: { maxBytes: 4096 } },
      http: { maxBodyBytes: 10, maxJsonDepth: 2, maxBatchMessages: 3 },
      dispatchers: [{ consumerId: 'billing', host: 'http://billing:8080', pattern: 'order.*', startFrom: 'latest' }],
      delivery: { maxNackRetries: 0, timeoutMs: 500, shutdownGraceMs: 0, backoff: { initialMs: 10, maxMs: 20 } },
    });
    expect(resolved).toMatchObject({
      persistence: {
        rootDir: '/data/mmmq',
        segmentMaxBytes: 4096,
        flushIntervalMs: DEFAULT_FLUSH_INTERVAL_MS,
        flushBytes: DEFAULT_FLUSH_BYTES,
      },
      http: { maxBodyBytes: 10, maxJsonDepth: 2, maxBatchMessages: 3 },
      dispatch: {
        delivery: {
          maxNackRetries: 0,
          timeoutMs: 500,
          shutdownGraceMs: 0,
          backoff: { initialMs: 10, maxMs: 20, multiplier: 2, jitter: 0.2 },
        },
      },
    });
    expect(resolved.dispatch.dispatchers.map((definition) => definition.consumerId)).toEqual(['billing']);
    expect(resolved.dispatch.dispatchers[0].startFrom).toBe('latest');
  });

  it('caps the push connections per host and in all (defaults 64 and 256); a total below 64 lowers the per-host default', () => {
    expect(resolveBrokerOptions().dispatch.delivery).toMatchObject({ maxSocketsPerHost: 64, maxSockets: 256 });
    expect(resolveBrokerOptions({ delivery: { maxSocketsPerHost: 8, maxSockets: 32 } }).dispatch.delivery).toMatchObject({
      maxSocketsPerHost: 8,
      maxSockets: 32,
    });
    expect(resolveBrokerOptions({ delivery: { maxSockets: 16 } }).dispatch.delivery).toMatchObject({
      maxSocketsPerHost: 16,
      maxSockets: 16,
    });
  });

  it('takes an allow-list of networks for pushes (default loopback), which opens private dispatcher hosts', () => {
    expect(resolveBrokerOptions().dispatch.delivery.allowedNetworks).toEqual(['loopback']);
    const resolved = resolveBrokerOptions({
      delivery: { allowedNetworks: ['private', '203.0.113.0/24', 'fd00::/8'] },
      dispatchers: [{ consumerId: 'lan', host: 'http://10.0.0.1:80', pattern: '**' }],
    });
    expect(resolved.dispatch.delivery.allowedNetworks).toEqual(['private', '203.0.113.0/24', 'fd00::/8']);
    expect(resolved.dispatch.dispatchers[0].hosts[0].address).toBe('10.0.0.1');
  });

  it('normalises allowed hosts and origins, and keeps the timeouts and the connection cap given', () => {
    const { http } = resolveBrokerOptions({
      http: {
        allowedHosts: ['Broker.Internal.', '*'],
        allowedOrigins: ['https://Console.example.com:443/', 'http://127.0.0.1:3000'],
        headersTimeoutMs: 1000,
        requestTimeoutMs: 2000,
        keepAliveTimeoutMs: 3000,
        maxConnectionsPerIp: 4,
      },
    });
    expect(http).toMatchObject({
      allowedHosts: ['broker.internal', '*'],
      allowedOrigins: ['https://console.example.com', 'http://127.0.0.1:3000'],
      headersTimeoutMs: 1000,
      requestTimeoutMs: 2000,
      keepAliveTimeoutMs: 3000,
      maxConnectionsPerIp: 4,
    });
  });

  it.each<[MmmqBrokerOptions, RegExp]>([
    [{ http: { maxBodySize: 1 } as never }, /^Unknown option http\.maxBodySize; the http options are maxBodyBytes, /],
    [{ persistance: {} } as never, /^Unknown broker option persistance; the options are persistence, http, stream, /],
    [
      { persistence: { rootdir: '/x' } } as never,
      /^Unknown option persistence\.rootdir; the persistence options are rootDir, segment, flush, fsync, fsyncIntervalMs, diskGuard, retention$/,
    ],
    [
      { persistence: { segment: { maxByte: 1 } } } as never,
      /^Unknown option persistence\.segment\.maxByte; the persistence\.segment options are maxBytes$/,
    ],
    [
      { persistence: { flush: { interval: 1 } } } as never,
      /^Unknown option persistence\.flush\.interval; the persistence\.flush options are intervalMs, bytes$/,
    ],
    [{ stream: { port: 1, hostname: 'x' } } as never, /^Unknown option stream\.hostname; the stream options are port, host$/],
    [{ tls: { keyFile: 'k', certFile: 'c', caFile: 'a' } } as never, /^Unknown option tls\.caFile; the tls options are keyFile, certFile$/],
    [{ delivery: { maxRetries: 1 } } as never, /^Unknown option delivery\.maxRetries; the delivery options are maxNackRetries, /],
    [
      { delivery: { backoff: { initial: 1 } } } as never,
      /^Unknown option delivery\.backoff\.initial; the delivery\.backoff options are initialMs, /,
    ],
    [{ persistence: 'mmmq' } as never, /^persistence must be an object, got "mmmq"$/],
    ['./mmmq' as never, /^The broker options must be an object, got "\.\/mmmq"$/],
    [{ http: { allowedHosts: 'localhost' as never } }, /^http\.allowedHosts must be an array, got "localhost"$/],
    [{ http: { allowedHosts: ['broker:8080'] } }, /^http\.allowedHosts\[0\] must be a host name without scheme or port/],
    [{ http: { allowedHosts: ['http://broker'] } }, /^http\.allowedHosts\[0\] must be a host name/],
    [{ http: { allowedOrigins: ['https://console.example.com/app'] } }, /^http\.allowedOrigins\[0\] must be an origin/],
    [{ http: { allowedOrigins: ['null'] } }, /^http\.allowedOrigins\[0\] must be an origin/],
    [{ http: { allowedOrigins: ['*'] } }, /^http\.allowedOrigins\[0\] must be an origin/],
    [{ http: { headersTimeoutMs: 0 } }, /^http\.headersTimeoutMs must be a positive integer, got 0$/],
    [
      { http: { headersTimeoutMs: 20_000, requestTimeoutMs: 10_000 } },
      /^http\.headersTimeoutMs \(20000\) must not exceed http\.requestTimeoutMs \(10000\)$/,
    ],
    [{ http: { keepAliveTimeoutMs: 2 ** 31 } }, /^http\.keepAliveTimeoutMs must be at most 2147483647/],
    [{ http: { maxConnectionsPerIp: 0 } }, /^http\.maxConnectionsPerIp must be a positive integer, got 0$/],
    [{ persistence: { segment: { maxBytes: 0 } } }, /^persistence\.segment\.maxBytes must be a positive integer, got 0$/],
    [{ persistence: { segment: { maxBytes: 1.5 } } }, /^persistence\.segment\.maxBytes must be a positive integer/],
    [{ persistence: { rootDir: ' ' } }, /^persistence\.rootDir must be a non-blank string/],
    [{ http: { maxBodyBytes: -1 } }, /^http\.maxBodyBytes must be a positive integer/],
    [{ http: { maxBodyBytes: MAX_BODY_BYTES_LIMIT + 1 } }, /^http\.maxBodyBytes must be at most/],
    [{ http: { maxJsonDepth: Number.NaN } }, /^http\.maxJsonDepth must be a positive integer, got NaN$/],
    [{ http: { maxBatchMessages: '10' as unknown as number } }, /^http\.maxBatchMessages .* got "10"$/],
    [{ stream: { port: 70000 } }, /^stream\.port must be at most 65535, got 70000$/],
    [{ stream: {} as { port: number } }, /^stream\.port must be a non-negative integer, got undefined$/],
    [{ stream: { port: 1, host: '' } }, /^stream\.host must be a non-blank string/],
    [{ stream: 8081 as unknown as { port: number } }, /^stream must be an object \{ port, host\? \}, got 8081$/],
    [
      { tls: 'cert.pem' as unknown as { keyFile: string; certFile: string } },
      /^tls must be an object \{ keyFile, certFile \}, got "cert.pem"$/,
    ],
    [{ tls: { keyFile: 'k.pem', certFile: ' ' } }, /^tls.certFile must be a non-blank string, got " "$/],
    [{ delivery: { timeoutMs: 0 } }, /^delivery\.timeoutMs must be a positive integer, got 0$/],
    [{ delivery: { maxNackRetries: -1 } }, /^delivery\.maxNackRetries must be a non-negative integer, got -1$/],
    [{ delivery: { backoff: { jitter: 1 } } }, /^delivery\.backoff\.jitter must be a number from 0/],
    [{ delivery: { maxSocketsPerHost: 0 } }, /^delivery\.maxSocketsPerHost must be a positive integer, got 0$/],
    [{ delivery: { maxSockets: 1.5 } }, /^delivery\.maxSockets must be a positive integer, got 1\.5$/],
    [
      { delivery: { maxSocketsPerHost: 20, maxSockets: 10 } },
      /^delivery\.maxSocketsPerHost \(20\) must not exceed delivery\.maxSockets \(10\)$/,
    ],
    [
      { delivery: { allowedNetworks: 'private' as unknown as string[] } },
      /^delivery\.allowedNetworks must be an array of strings, got "private"$/,
    ],
    [
      { delivery: { allowedNetworks: ['loopback', 'lan'] } },
      /^delivery\.allowedNetworks\[1\] must be "loopback", "private", an IP address or a CIDR/,
    ],
    [
      { delivery: { allowedNetworks: ['10.0.0.0/40'] } },
      /^delivery\.allowedNetworks\[0\] "10\.0\.0\.0\/40" has a prefix longer than 32 bits$/,
    ],
    [
      { dispatchers: [{ consumerId: 'a', host: 'http://h:1', pattern: '**', signingSecret: 'whsec_c2hvcnQ=' }] },
      /^dispatchers\[0\]: signingSecret must be "whsec_" followed by the base64 of 24 to 64 random bytes; it holds 5 bytes$/,
    ],
    [
      { dispatchers: [{ consumerId: 'imds', host: 'http://169.254.169.254:80', pattern: '**' }] },
      /^dispatchers\[0\] \(imds\): host http:\/\/169\.254\.169\.254:80 is refused: .* cloud metadata service/,
    ],
    [
      { dispatchers: [{ consumerId: 'lan', host: 'http://10.0.0.1:80', pattern: '**' }], delivery: { allowedNetworks: ['loopback'] } },
      /^dispatchers\[0\] \(lan\): host http:\/\/10\.0\.0\.1:80 is refused: 10\.0\.0\.1 is in a private range/,
    ],
    [{ dispatchers: [{ consumerId: 'a', host: 'h:1', pattern: '**' }] }, /^dispatchers\[0\]: /],
    [
      {
        dispatchers: [
          { consumerId: 'a', host: 'http://h:1', pattern: '**' },
          { consumerId: 'a', host: 'http://h:2', pattern: '**' },
        ],
      },
      /^dispatchers\[1\]: duplicate consumerId a$/,
    ],
  ])('refuses %j naming the option', (options, message) => {
    expect(() => resolveBrokerOptions(options)).toThrow(InvalidBrokerOptionsError);
    expect(() => resolveBrokerOptions(options)).toThrow(message);
  });
});
