import {
  DEFAULT_PULL_MAX_LEASE_EXTENSION_MS,
  DEFAULT_PULL_PREFETCH,
  DEFAULT_PULL_WAIT_MS,
  InvalidConsumerOptionsError,
  MmmqConsumerOptions,
} from '../../src';
import { resolveConsumerOptions } from '../../src/runtime/mmmq-consumer-options.resolver';
import { defaultPullMember } from '../../src/pull/pull-member';

const pull = { app: 'billing', broker: 'http://broker:8080/', delivery: 'pull' as const };

describe('pull and acknowledge-mode options', () => {
  it('pulls from the broker with the documented defaults and registers dispatchers without a host', () => {
    const resolved = resolveConsumerOptions(pull);
    expect(resolved.delivery).toBe('pull');
    expect(resolved.ackMode).toBe('auto');
    expect(resolved.pull).toEqual({
      prefetch: DEFAULT_PULL_PREFETCH,
      waitMs: DEFAULT_PULL_WAIT_MS,
      member: defaultPullMember('billing'),
      ackTimeoutMs: undefined,
      maxLeaseExtensionMs: DEFAULT_PULL_MAX_LEASE_EXTENSION_MS,
    });
    expect(resolved.broker?.url).toBe('http://broker:8080');
    expect(resolved.registrations.pull?.brokerUrl).toBe('http://broker:8080');
    expect(resolved.registrations.pull?.advertisedHost).toBeUndefined();
    expect(resolved.registrations.push).toBeUndefined();
  });

  it('takes the pull settings and ack modes given', () => {
    const resolved = resolveConsumerOptions({
      ...pull,
      ackMode: 'dupsOk',
      pull: { prefetch: 10, waitMs: 0, member: 'billing:pod-7', ackTimeoutMs: 60_000 },
      listeners: { 'A.b': { ackMode: 'manual' } },
    });
    expect(resolved.pull).toEqual({
      prefetch: 10,
      waitMs: 0,
      member: 'billing:pod-7',
      ackTimeoutMs: 60_000,
      maxLeaseExtensionMs: DEFAULT_PULL_MAX_LEASE_EXTENSION_MS,
    });
    expect(resolved.ackMode).toBe('dupsOk');
    expect(resolved.listeners.get('A.b')?.ackMode).toBe('manual');
  });

  it('does not register in pull mode with autoRegister: false, but still pulls', () => {
    const resolved = resolveConsumerOptions({ ...pull, autoRegister: false });
    expect(resolved.registrations).toEqual({ push: undefined, pull: undefined });
    expect(resolved.pull).toBeDefined();
  });

  it.each<[string, MmmqConsumerOptions, string]>([
    ['unknown option', { ackmode: 'manual' } as never, 'MmmqConsumerModule options has unknown field(s) ackmode'],
    ['unknown workers field', { workers: { maximum: 3 } } as never, 'workers has unknown field(s) maximum'],
    ['ackMode', { ackMode: 'client' as never }, 'ackMode must be one of "auto", "manual", "dupsOk", "none", got "client"'],
    ['listener ackMode', { listeners: { x: { ackMode: 'auto-ack' as never } } }, 'listeners["x"].ackMode must be one of'],
    ['delivery', { delivery: 'poll' as never }, 'delivery must be one of "push", "pull", got "poll"'],
    ['pull without broker', { app: 'a', delivery: 'pull' }, 'delivery is "pull" but broker is not set'],
    ['pull registration without app', { broker: 'http://b:1', delivery: 'pull' }, 'app is required when autoRegister is on'],
    ['unknown pull field', { ...pull, pull: { prefetchCount: 5 } as never }, 'pull has unknown field(s) prefetchCount'],
    ['pull.prefetch', { ...pull, pull: { prefetch: 1001 } }, 'pull.prefetch must be an integer from 1 to 1000, got 1001'],
    ['pull.waitMs', { ...pull, pull: { waitMs: 60_001 } }, 'pull.waitMs must be an integer from 0 to 60000, got 60001'],
    ['pull.ackTimeoutMs', { ...pull, pull: { ackTimeoutMs: 999 } }, 'pull.ackTimeoutMs must be an integer from 1000 to 43200000, got 999'],
    [
      'pull.maxLeaseExtensionMs',
      { ...pull, pull: { maxLeaseExtensionMs: -1 } },
      'pull.maxLeaseExtensionMs must be an integer from 0 to 43200000, got -1',
    ],
    ['pull.member', { ...pull, pull: { member: 'pod 7' } }, 'pull.member must be 1 to 128 characters of [A-Za-z0-9._:-], got "pod 7"'],
  ])('names the offending option: %s', (_name, options, message) => {
    expect(() => resolveConsumerOptions(options)).toThrow(InvalidConsumerOptionsError);
    expect(() => resolveConsumerOptions(options)).toThrow(message);
  });
});

describe('defaultPullMember', () => {
  it('is app, host name and process id, with characters the broker refuses replaced', () => {
    expect(defaultPullMember('billing', 'pod-7.example', 4242)).toBe('billing:pod-7.example:4242');
    expect(defaultPullMember(undefined, 'my host/ä', 1)).toBe('mmmq:my-host--:1');
  });

  it('fits in 128 characters whatever the host name', () => {
    const member = defaultPullMember('billing', 'h'.repeat(300), 4242);
    expect(member).toHaveLength(128);
    expect(member.endsWith(':4242')).toBe(true);
  });
});
