import { DEFAULT_SIGNATURE_TOLERANCE_SECONDS, Host, MAX_TIMER_MS, SigningSecret } from '@mmmq/core';
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_WORKERS,
  DEFAULT_MIN_WORKERS,
  DEFAULT_PULL_MAX_LEASE_EXTENSION_MS,
  DEFAULT_PULL_PREFETCH,
  DEFAULT_PULL_WAIT_MS,
  DEFAULT_QUEUE_SIZE,
  DEFAULT_REGISTRATION_ATTEMPTS,
  DEFAULT_REGISTRATION_BACKOFF_MS,
  DEFAULT_REGISTRATION_MAX_BACKOFF_MS,
  DEFAULT_REGISTRATION_TIMEOUT_MS,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  InvalidConsumerOptionsError,
  MmmqConsumerOptions,
} from '../src';
import { resolveConsumerOptions } from '../src/runtime/mmmq-consumer-options.resolver';
import { defaultPullMember } from '../src/pull/pull-member';

describe('resolveConsumerOptions', () => {
  it('applies the documented defaults, without self-registration', () => {
    expect(resolveConsumerOptions({})).toEqual({
      app: undefined,
      queueSize: DEFAULT_QUEUE_SIZE,
      workers: { min: DEFAULT_MIN_WORKERS, max: DEFAULT_MAX_WORKERS },
      shutdownTimeoutMs: DEFAULT_SHUTDOWN_TIMEOUT_MS,
      maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
      registrations: { push: undefined, pull: undefined },
      signing: undefined,
      listeners: new Map(),
      ackMode: 'auto',
      delivery: 'push',
      broker: undefined,
      pull: {
        prefetch: DEFAULT_PULL_PREFETCH,
        waitMs: DEFAULT_PULL_WAIT_MS,
        member: defaultPullMember(undefined),
        ackTimeoutMs: undefined,
        maxLeaseExtensionMs: DEFAULT_PULL_MAX_LEASE_EXTENSION_MS,
      },
      given: {},
    });
  });

  it('verifies pushes with the signingSecrets given, within ±300 s unless told otherwise', () => {
    const secrets = [SigningSecret.generate().reveal(), SigningSecret.generate().reveal()];
    const signing = resolveConsumerOptions({ signingSecrets: secrets })?.signing;
    expect(signing?.secrets.map((secret) => secret.reveal())).toEqual(secrets);
    expect(signing?.toleranceSeconds).toBe(DEFAULT_SIGNATURE_TOLERANCE_SECONDS);
    expect(resolveConsumerOptions({ signingSecrets: secrets, signatureToleranceSeconds: 30 }).signing?.toleranceSeconds).toBe(30);
  });

  it.each<[MmmqConsumerOptions, string]>([
    [{ signingSecrets: [] }, 'signingSecrets must be a non-empty array'],
    [{ signingSecrets: 'whsec_x' as unknown as string[] }, 'signingSecrets must be a non-empty array'],
    [
      { signingSecrets: [SigningSecret.generate().reveal(), 'whsec_c2hvcnQ='] },
      'signingSecrets[1] must be "whsec_" followed by the base64 of 24 to 64 random bytes; it holds 5 bytes',
    ],
    [{ signingSecrets: ['not-a-secret-at-all'] }, 'signingSecrets[0] must be a string: "whsec_"'],
    [{ signatureToleranceSeconds: 0 }, 'signatureToleranceSeconds must be a positive integer, got 0'],
  ])('refuses %j naming the option, never the secret', (options, message) => {
    expect(() => resolveConsumerOptions(options)).toThrow(InvalidConsumerOptionsError);
    expect(() => resolveConsumerOptions(options)).toThrow(message);
    expect(() => resolveConsumerOptions(options)).not.toThrow('not-a-secret');
  });

  it('turns self-registration on when broker and advertisedUrl are both set', () => {
    const resolved = resolveConsumerOptions({ app: 'billing', broker: 'http://broker:8080/', advertisedUrl: 'http://billing:3000' });
    expect(resolved.registrations.push).toEqual({
      brokerUrl: 'http://broker:8080',
      advertisedHost: Host.parse('http://billing:3000'),
      failFast: false,
      attempts: DEFAULT_REGISTRATION_ATTEMPTS,
      backoff: { initialMs: DEFAULT_REGISTRATION_BACKOFF_MS, multiplier: 2, maxMs: DEFAULT_REGISTRATION_MAX_BACKOFF_MS, jitter: 0.2 },
      timeoutMs: DEFAULT_REGISTRATION_TIMEOUT_MS,
      leaveOnShutdown: true,
      batchSize: 500,
      maxInFlight: 4,
      tls: undefined,
      token: undefined,
    });
  });

  it('registers in the background unless registration.failFast, and never waits less than backoffMs between tries', () => {
    const base = { app: 'billing', broker: 'http://broker:8080', advertisedUrl: 'http://billing:3000' };
    expect(resolveConsumerOptions({ ...base, registration: { failFast: true } }).registrations.push?.failFast).toBe(true);
    expect(resolveConsumerOptions({ ...base, delivery: 'pull', advertisedUrl: undefined }).registrations.pull?.failFast).toBe(false);
    expect(resolveConsumerOptions({ ...base, registration: { backoffMs: 20_000 } }).registrations.push?.backoff).toMatchObject({
      initialMs: 20_000,
      maxMs: 20_000,
    });
  });

  it('takes the host out on shutdown unless registration.leaveOnShutdown is false', () => {
    const base = { app: 'billing', broker: 'http://broker:8080', advertisedUrl: 'http://billing:3000' };
    expect(resolveConsumerOptions({ ...base, registration: { leaveOnShutdown: false } }).registrations.push?.leaveOnShutdown).toBe(false);
    expect(resolveConsumerOptions({ ...base, delivery: 'pull', advertisedUrl: undefined }).registrations.pull?.leaveOnShutdown).toBe(true);
  });

  it('sends a token on registration, and refuses one that cannot travel in a header without quoting it', () => {
    const base = { app: 'billing', broker: 'http://broker:8080', advertisedUrl: 'http://billing:3000' };
    expect(resolveConsumerOptions({ ...base, token: 'billing-token-0123456789' }).registrations.push?.token).toBe(
      'billing-token-0123456789',
    );
    for (const token of ['', 'billing token', 'line\nbreak']) {
      expect(() => resolveConsumerOptions({ ...base, token })).toThrow(
        /^token must be a non-empty string of printable ASCII characters without spaces$/,
      );
    }
  });

  it('asks the broker for the configured pushes in flight, at most 16', () => {
    const base = { app: 'billing', broker: 'http://broker:8080', advertisedUrl: 'http://billing:3000' };
    expect(resolveConsumerOptions({ ...base, deliveryMaxInFlight: 1 }).registrations.push?.maxInFlight).toBe(1);
    expect(() => resolveConsumerOptions({ ...base, deliveryMaxInFlight: 17 })).toThrow('deliveryMaxInFlight must be at most 16, got 17');
    expect(() => resolveConsumerOptions({ ...base, deliveryMaxInFlight: 0 })).toThrow(/deliveryMaxInFlight/);
  });

  it('asks the broker for the configured batch size, at most 1000', () => {
    const base = { app: 'billing', broker: 'http://broker:8080', advertisedUrl: 'http://billing:3000' };
    expect(resolveConsumerOptions({ ...base, deliveryBatchSize: 1 }).registrations.push?.batchSize).toBe(1);
    expect(() => resolveConsumerOptions({ ...base, deliveryBatchSize: 1001 })).toThrow(/deliveryBatchSize must be at most 1000/);
    expect(() => resolveConsumerOptions({ ...base, deliveryBatchSize: 0 })).toThrow(/deliveryBatchSize/);
  });

  it('keeps self-registration off with autoRegister: false', () => {
    const options = { broker: 'http://broker:8080', advertisedUrl: 'http://billing:3000', autoRegister: false };
    expect(resolveConsumerOptions(options).registrations.push).toBeUndefined();
  });

  it('derives the worker bound that was not given from the one that was', () => {
    expect(resolveConsumerOptions({ workers: { max: 1 } }).workers).toEqual({ min: 1, max: 1 });
    expect(resolveConsumerOptions({ workers: { min: 8 } }).workers).toEqual({ min: 8, max: 8 });
  });

  it('validates listener entries', () => {
    const resolved = resolveConsumerOptions({
      listeners: { 'Orders.onCreated': { concurrency: 4, consumerId: 'orders', startFrom: 'latest' } },
    });
    expect(resolved.listeners.get('Orders.onCreated')).toEqual({ concurrency: 4, consumerId: 'orders', startFrom: 'latest' });
    const atTime = resolveConsumerOptions({ listeners: { x: { startFrom: { time: '2026-12-07T10:00:00Z' } } } });
    expect(atTime.listeners.get('x')?.startFrom).toEqual({ time: '2026-12-07T10:00:00Z' });
  });

  it.each<[string, MmmqConsumerOptions, string]>([
    ['queueSize', { queueSize: 0 }, 'queueSize must be a positive integer, got 0'],
    ['workers.max', { workers: { max: 2.5 } }, 'workers.max must be a positive integer, got 2.5'],
    ['workers.min above max', { workers: { min: 6, max: 3 } }, 'workers.min (6) must not exceed workers.max (3)'],
    ['shutdownTimeoutMs', { shutdownTimeoutMs: -1 }, 'shutdownTimeoutMs must be a non-negative integer, got -1'],
    [
      'shutdownTimeoutMs above a timer',
      { shutdownTimeoutMs: 2 ** 31 },
      `shutdownTimeoutMs must be at most ${MAX_TIMER_MS}, got ${2 ** 31}`,
    ],
    [
      'registration.timeoutMs above a timer',
      { app: 'a', broker: 'http://b:1', advertisedUrl: 'http://c:2', registration: { timeoutMs: 2 ** 31 } },
      `registration.timeoutMs must be at most ${MAX_TIMER_MS}, got ${2 ** 31}`,
    ],
    [
      'registration.backoffMs above a timer',
      { app: 'a', broker: 'http://b:1', advertisedUrl: 'http://c:2', registration: { backoffMs: 2 ** 31 } },
      `registration.backoffMs must be at most ${MAX_TIMER_MS}, got ${2 ** 31}`,
    ],
    ['app', { app: 'billing.' }, 'app is invalid: Consumer id "billing." cannot start or end with a dot'],
    [
      'autoRegister without broker',
      { autoRegister: true, advertisedUrl: 'http://billing:3000' },
      'autoRegister is on but broker is not set',
    ],
    [
      'autoRegister without app',
      { broker: 'http://broker:8080', advertisedUrl: 'http://billing:3000' },
      'app is required when autoRegister is on',
    ],
    ['broker', { app: 'a', broker: 'broker:8080', advertisedUrl: 'http://billing:3000' }, 'broker must be an http(s) URL like'],
    [
      'broker with user info (it would be logged)',
      { app: 'a', broker: 'http://user:hunter2@broker:8080', advertisedUrl: 'http://billing:3000' },
      'broker must not carry user info; the broker authenticates the token option instead',
    ],
    [
      'advertisedUrl',
      { app: 'a', broker: 'http://broker:8080', advertisedUrl: 'http://billing:3000/mmmq' },
      'advertisedUrl is invalid: Host URL',
    ],
    [
      'registration.attempts',
      { app: 'a', broker: 'http://b:1', advertisedUrl: 'http://c:2', registration: { attempts: 0 } },
      'registration.attempts must be a positive integer',
    ],
    [
      'registration.failFast',
      { app: 'a', broker: 'http://b:1', advertisedUrl: 'http://c:2', registration: { failFast: 'yes' as never } },
      'registration.failFast must be true or false, got "yes"',
    ],
    [
      'registration.leaveOnShutdown',
      { app: 'a', broker: 'http://b:1', advertisedUrl: 'http://c:2', registration: { leaveOnShutdown: 'no' as never } },
      'registration.leaveOnShutdown must be true or false, got "no"',
    ],
    [
      'registration.backoffMs',
      { app: 'a', broker: 'http://b:1', advertisedUrl: 'http://c:2', registration: { backoffMs: 0 } },
      'registration.backoffMs must be a positive integer, got 0',
    ],
    ['listeners entry field', { listeners: { x: { concurency: 2 } as never } }, 'listeners["x"] has unknown field(s) concurency'],
    ['listeners concurrency', { listeners: { x: { concurrency: 0 } } }, 'listeners["x"].concurrency must be a positive integer, got 0'],
    [
      'listeners startFrom',
      { listeners: { x: { startFrom: 'now' as never } } },
      'listeners["x"].startFrom must be "earliest", "latest" or {"time": "<ISO 8601 with a zone>"}, got "now"',
    ],
    ['listeners consumerId', { listeners: { x: { consumerId: 'a/b' } } }, 'listeners["x"].consumerId is invalid'],
  ])('names the offending option: %s', (_name, options, message) => {
    expect(() => resolveConsumerOptions(options)).toThrow(InvalidConsumerOptionsError);
    expect(() => resolveConsumerOptions(options)).toThrow(message);
  });
});
