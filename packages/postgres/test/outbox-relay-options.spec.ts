import {
  DEFAULT_MAX_RETRY_COUNT,
  DEFAULT_MAX_RETRY_DELAY_MS,
  DEFAULT_TIMEOUT_MS,
  Producer,
  type MmmqProducerOptions,
} from '@mmmq/producer';
import { InvalidOutboxOptionsError } from '../src/errors/invalid-outbox-options.error';
import { OutboxRelay } from '../src/relay/outbox-relay';
import { resolveRelayOptions } from '../src/relay/outbox-relay-options.resolver';
import {
  DEFAULT_RELAY_LEASE_MS,
  DEFAULT_RELAY_PRODUCER_MAX_RETRY_COUNT,
  DEFAULT_RELAY_PRODUCER_MAX_RETRY_DELAY_MS,
} from '../src/relay/outbox-relay.options';
import { publishWorstCaseMs, type PublishBounds } from '../src/relay/relay-producer-options';

const BROKER = 'http://broker.invalid:8080';

function producerOf(options: { leaseMs?: number; producer?: Partial<MmmqProducerOptions> }): MmmqProducerOptions {
  const resolved = resolveRelayOptions({ connection: 'postgres://x', ...options, producer: { broker: BROKER, ...options.producer } });
  return resolved.producer as MmmqProducerOptions;
}

describe('resolveRelayOptions: the producer the relay makes fits in its lease', () => {
  it('would not with the producer defaults: one publish against a hung broker outlasts the default lease', () => {
    const producerDefaults = {
      maxRetryCount: DEFAULT_MAX_RETRY_COUNT,
      maxRetryDelayMs: DEFAULT_MAX_RETRY_DELAY_MS,
      timeoutMs: DEFAULT_TIMEOUT_MS,
    };
    expect(publishWorstCaseMs(producerDefaults)).toBeGreaterThan(DEFAULT_RELAY_LEASE_MS);
  });

  it('bounds retries and timeouts so that one publish takes at most half the default lease', () => {
    const producer = producerOf({});

    expect(producer).toEqual({
      broker: BROKER,
      maxRetryCount: DEFAULT_RELAY_PRODUCER_MAX_RETRY_COUNT,
      maxRetryDelayMs: DEFAULT_RELAY_PRODUCER_MAX_RETRY_DELAY_MS,
      timeoutMs: 7_000,
    });
    expect(publishWorstCaseMs(producer as PublishBounds)).toBeLessThanOrEqual(DEFAULT_RELAY_LEASE_MS / 2);
  });

  it.each([100, 1_000, 5_000, 60_000, 3_600_000])(
    'fits the settings to a lease of %i ms, never beyond the producer defaults',
    (leaseMs) => {
      const producer = producerOf({ leaseMs }) as PublishBounds;

      expect(publishWorstCaseMs(producer)).toBeLessThanOrEqual(leaseMs / 2);
      expect(producer.timeoutMs).toBeGreaterThan(0);
      expect(producer.timeoutMs).toBeLessThanOrEqual(DEFAULT_TIMEOUT_MS);
    },
  );

  it('keeps the settings given and fits only the others', () => {
    expect(producerOf({ producer: { timeoutMs: 2_000, retryDelayMs: 10 } })).toEqual({
      broker: BROKER,
      retryDelayMs: 10,
      maxRetryCount: DEFAULT_RELAY_PRODUCER_MAX_RETRY_COUNT,
      maxRetryDelayMs: DEFAULT_RELAY_PRODUCER_MAX_RETRY_DELAY_MS,
      timeoutMs: 2_000,
    });
    expect(producerOf({ producer: { maxRetryCount: 0 } })).toMatchObject({ maxRetryCount: 0, timeoutMs: DEFAULT_TIMEOUT_MS });
  });

  it('refuses settings that let one publish outlast the lease, naming them', () => {
    const resolving = () => producerOf({ producer: { maxRetryCount: 3, timeoutMs: 10_000 } });

    expect(resolving).toThrow(InvalidOutboxOptionsError);
    expect(resolving).toThrow(
      /relay.leaseMs \(30000\) must be longer than one publish .* = 43000 ms with relay.producer.maxRetryCount 3, relay.producer.maxRetryDelayMs 1000 and relay.producer.timeoutMs 10000/,
    );
    expect(() => producerOf({ leaseMs: 1_000, producer: { timeoutMs: 1_000, maxRetryCount: 0 } })).toThrow(/relay.leaseMs \(1000\)/);
    expect(producerOf({ leaseMs: 1_001, producer: { timeoutMs: 1_000, maxRetryCount: 0 } })).toMatchObject({ timeoutMs: 1_000 });
  });

  it("leaves values that are not counts to the producer's own checks", () => {
    expect(producerOf({ producer: { timeoutMs: 'soon' as never } })).toEqual({ broker: BROKER, timeoutMs: 'soon' });
  });

  it('passes a Producer of your own through: its settings are not visible', () => {
    const producer = Object.create(Producer.prototype) as Producer;

    expect(resolveRelayOptions({ connection: 'postgres://x', producer }).producer).toBe(producer);
  });
});

describe('OutboxRelay.purgePublished', () => {
  it('names what it needs when retention is off and an argument is missing', async () => {
    const relay = new OutboxRelay({ connection: 'postgres://x', producer: { broker: BROKER }, retention: false });
    try {
      await expect(relay.purgePublished()).rejects.toThrow(InvalidOutboxOptionsError);
      await expect(relay.purgePublished(1_000)).rejects.toThrow(/needs maxAgeMs and batchSize when the relay option retention is false/);
    } finally {
      await relay.close();
    }
  });
});
