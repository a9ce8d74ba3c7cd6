import { Test } from '@nestjs/testing';
import { InvalidBrokerOptionsError, MmmqBrokerModule, MmmqBrokerOptions } from '../../src';
import {
  DEFAULT_MAX_SUBSCRIPTION_SERIES,
  DEFAULT_MAX_TOPIC_SERIES,
  DEFAULT_METRICS_PATH,
  resolveMetricsOptions,
} from '../../src/metrics/metrics.options';

const CAPS = { maxTopicSeries: DEFAULT_MAX_TOPIC_SERIES, maxSubscriptionSeries: DEFAULT_MAX_SUBSCRIPTION_SERIES };

describe('the metrics option', () => {
  it('is on at /metrics by default, and off with enabled false', () => {
    expect(resolveMetricsOptions({})).toEqual({ enabled: true, path: DEFAULT_METRICS_PATH, ...CAPS });
    expect(resolveMetricsOptions(undefined)).toEqual({ enabled: true, path: 'metrics', ...CAPS });
    expect(resolveMetricsOptions({ enabled: false })).toEqual({ enabled: false });
    expect(resolveMetricsOptions({ path: 'ops/prometheus' })).toEqual({ enabled: true, path: 'ops/prometheus', ...CAPS });
  });

  it('caps the per-topic and per-subscription series at 1,000 each by default, or as given (0: all summed)', () => {
    expect(CAPS).toEqual({ maxTopicSeries: 1_000, maxSubscriptionSeries: 1_000 });
    expect(resolveMetricsOptions({ maxTopicSeries: 0, maxSubscriptionSeries: 50 })).toEqual({
      enabled: true,
      path: 'metrics',
      maxTopicSeries: 0,
      maxSubscriptionSeries: 50,
    });
  });

  it.each([
    [{ enabled: 'yes' }, /^metrics\.enabled must be true or false/],
    [{ path: '/metrics' }, /^metrics\.path must be path segments/],
    [{ path: 'a//b' }, /^metrics\.path must be path segments/],
    [{ paht: 'x' }, /^Unknown option metrics\.paht/],
    [{ maxTopicSeries: -1 }, /^metrics\.maxTopicSeries must be a non-negative integer/],
    [{ maxTopicSeries: 1.5 }, /^metrics\.maxTopicSeries must be a non-negative integer/],
    [{ maxSubscriptionSeries: '10' }, /^metrics\.maxSubscriptionSeries must be a non-negative integer/],
    [
      { maxTopicSerie: 10 },
      /^Unknown option metrics\.maxTopicSerie; the metrics options are enabled, path, maxTopicSeries, maxSubscriptionSeries/,
    ],
    ['on', /^metrics must be an object/],
  ])('refuses %p, naming the option', (given, message) => {
    expect(() => resolveMetricsOptions(given)).toThrow(InvalidBrokerOptionsError);
    expect(() => resolveMetricsOptions(given)).toThrow(message);
  });

  it('fails the module at bootstrap when given wrong to forRoot', () => {
    const options = { metrics: { enabled: 1 } } as MmmqBrokerOptions;
    expect(() => Test.createTestingModule({ imports: [MmmqBrokerModule.forRoot(options)] })).toThrow(
      /^metrics\.enabled must be true or false/,
    );
  });
});
