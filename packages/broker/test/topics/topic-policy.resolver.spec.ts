import { InvalidBrokerOptionsError } from '../../src/config/invalid-broker-options.error';
import {
  DEFAULT_DEDUPLICATION_MAX_IDS,
  DEFAULT_DEDUPLICATION_WINDOW_MS,
  DEFAULT_RETENTION_MS,
  DEFAULT_TOPIC_POLICY,
} from '../../src/topics/topic-policy.options';
import { resolveTopicsOptions, topicPolicyOf } from '../../src/topics/topic-policy.resolver';

describe('topic policies (the topics option)', () => {
  it('gives every user topic the defaults when nothing is set: a week of retention, no limits, no expiry, persistent', () => {
    expect(topicPolicyOf(resolveTopicsOptions(), 'order.created')).toEqual(DEFAULT_TOPIC_POLICY);
    expect(DEFAULT_TOPIC_POLICY.retention.ms).toBe(DEFAULT_RETENTION_MS);
  });

  it('overlays matching overrides on the broker-wide defaults field by field, in the order given', () => {
    const resolved = resolveTopicsOptions({
      defaults: { retention: { bytes: 1_000_000 }, expiry: { ttlMs: 60_000 } },
      overrides: [
        { pattern: 'order.**', retention: { ms: 3_600_000 }, deliveryMode: 'nonPersistent' },
        { pattern: 'order.created', retention: { ms: null }, limits: { maxMessages: 10, overflow: 'dropOldest' } },
      ],
    });
    expect(topicPolicyOf(resolved, 'order.created')).toEqual({
      retention: { ms: null, bytes: 1_000_000, whenNeeded: 'keep' },
      limits: { maxBytes: null, maxMessages: 10, overflow: 'dropOldest' },
      expiry: { ttlMs: 60_000, whenExpired: 'deadLetter' },
      deliveryMode: 'nonPersistent',
      fsync: 'always',
      deduplication: { windowMs: DEFAULT_DEDUPLICATION_WINDOW_MS, maxIds: DEFAULT_DEDUPLICATION_MAX_IDS },
    });
    expect(topicPolicyOf(resolved, 'order.paid').retention).toEqual({ ms: 3_600_000, bytes: 1_000_000, whenNeeded: 'keep' });
    expect(topicPolicyOf(resolved, 'billing').deliveryMode).toBe('persistent');
  });

  it("takes each topic's flush policy from its overrides, then topics.defaults, then the broker's persistence.fsync", () => {
    const resolved = resolveTopicsOptions(
      {
        defaults: {},
        overrides: [
          { pattern: 'scratch.**', fsync: 'never' },
          { pattern: 'audit.*', fsync: 'always' },
        ],
      },
      'interval',
    );
    expect(topicPolicyOf(resolved, 'order.created').fsync).toBe('interval');
    expect(topicPolicyOf(resolved, 'scratch.a.b').fsync).toBe('never');
    expect(topicPolicyOf(resolved, 'audit.login').fsync).toBe('always');
    expect(topicPolicyOf(resolveTopicsOptions({ defaults: { fsync: 'always' } }, 'never'), 'x').fsync).toBe('always');
    expect(topicPolicyOf(resolveTopicsOptions(), 'x').fsync).toBe('always');
    // Dead letters keep the default, whatever the broker's: they are written with the state that settles them.
    expect(topicPolicyOf(resolved, '__dlq.billing').fsync).toBe('always');
  });

  it('de-duplicates every topic for two minutes by default; an override sets the window or turns it off with windowMs 0', () => {
    expect(DEFAULT_DEDUPLICATION_WINDOW_MS).toBe(120_000);
    const resolved = resolveTopicsOptions({
      defaults: { deduplication: { maxIds: 500 } },
      overrides: [
        { pattern: 'metrics.**', deduplication: { windowMs: 0 } },
        { pattern: 'order.*', deduplication: { windowMs: 600_000 } },
      ],
    });
    expect(topicPolicyOf(resolved, 'billing').deduplication).toEqual({ windowMs: DEFAULT_DEDUPLICATION_WINDOW_MS, maxIds: 500 });
    expect(topicPolicyOf(resolved, 'metrics.cpu').deduplication).toEqual({ windowMs: 0, maxIds: 500 });
    expect(topicPolicyOf(resolved, 'order.created').deduplication).toEqual({ windowMs: 600_000, maxIds: 500 });
  });

  it('keeps everything of a broker-owned topic unless an override names it', () => {
    const resolved = resolveTopicsOptions({
      defaults: { retention: { ms: 1000 } },
      overrides: [{ pattern: '__dlq.**', retention: { bytes: 5000 } }],
    });
    expect(topicPolicyOf(resolved, '__redrive.billing').retention).toEqual({ ms: null, bytes: null, whenNeeded: 'keep' });
    expect(topicPolicyOf(resolved, '__dlq.billing').retention).toEqual({ ms: null, bytes: 5000, whenNeeded: 'keep' });
  });

  it('de-duplicates nothing on a broker-owned topic, whatever the defaults, unless an override names it', () => {
    const resolved = resolveTopicsOptions({
      defaults: { deduplication: { windowMs: 5000 } },
      overrides: [
        { pattern: '**', deduplication: { windowMs: 6000 } },
        { pattern: '__redrive.**', deduplication: { windowMs: 7000 } },
      ],
    });
    expect(topicPolicyOf(resolved, '__dlq.billing').deduplication).toEqual({ windowMs: 0, maxIds: DEFAULT_DEDUPLICATION_MAX_IDS });
    expect(topicPolicyOf(resolved, '__redrive.billing').deduplication).toEqual({ windowMs: 7000, maxIds: DEFAULT_DEDUPLICATION_MAX_IDS });
    expect(topicPolicyOf(resolved, 'order.created').deduplication.windowMs).toBe(6000);
  });

  it.each([
    [{ retention: { ms: 0 } }, 'topics.defaults.retention.ms must be a positive integer, got 0'],
    [{ retention: { size: 1 } }, 'topics.defaults.retention has unknown field(s) size'],
    [{ limits: { overflow: 'block' } }, 'topics.defaults.limits.overflow must be one of "reject", "dropOldest", got "block"'],
    [{ expiry: { whenExpired: 'delete' } }, 'topics.defaults.expiry.whenExpired must be one of "deadLetter", "drop"'],
    [{ deliveryMode: 'fast' }, 'topics.defaults.deliveryMode must be one of "persistent", "nonPersistent"'],
    [{ fsync: 'everysec' }, 'topics.defaults.fsync must be one of "always", "interval", "never", got "everysec"'],
    [{ ttlMs: 5 }, 'topics.defaults has unknown field(s) ttlMs'],
    [{ deduplication: { windowMs: -1 } }, 'topics.defaults.deduplication.windowMs must be a non-negative integer, got -1'],
    [{ deduplication: { windowMs: 1.5 } }, 'topics.defaults.deduplication.windowMs must be a non-negative integer, got 1.5'],
    [{ deduplication: { maxIds: 0 } }, 'topics.defaults.deduplication.maxIds must be a positive integer, got 0'],
    [{ deduplication: { window: 1000 } }, 'topics.defaults.deduplication has unknown field(s) window'],
    [{ deduplication: true }, 'topics.defaults.deduplication must be an object, got true'],
  ])('refuses the invalid default %j, naming the option', (defaults, message) => {
    expect(() => resolveTopicsOptions({ defaults } as never)).toThrow(InvalidBrokerOptionsError);
    expect(() => resolveTopicsOptions({ defaults } as never)).toThrow(message);
  });

  it('refuses an override without a valid pattern, naming its index', () => {
    expect(() => resolveTopicsOptions({ overrides: [{ pattern: 'a..b' }] })).toThrow(/topics\.overrides\[0\]\.pattern: /);
    expect(() => resolveTopicsOptions({ overrides: {} as never })).toThrow('topics.overrides must be an array, got');
  });
});
