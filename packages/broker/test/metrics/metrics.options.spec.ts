import { Test } from '@nestjs/testing';
import { InvalidBrokerOptionsError, MmmqBrokerModule, MmmqBrokerOptions } from '../../src';
import { DEFAULT_METRICS_PATH, resolveMetricsOptions } from '../../src/metrics/metrics.options';

describe('the metrics option', () => {
  it('is on at /metrics by default, and off with enabled false', () => {
    expect(resolveMetricsOptions({})).toEqual({ enabled: true, path: DEFAULT_METRICS_PATH });
    expect(resolveMetricsOptions(undefined)).toEqual({ enabled: true, path: 'metrics' });
    expect(resolveMetricsOptions({ enabled: false })).toEqual({ enabled: false });
    expect(resolveMetricsOptions({ path: 'ops/prometheus' })).toEqual({ enabled: true, path: 'ops/prometheus' });
  });

  it.each([
    [{ enabled: 'yes' }, /^metrics\.enabled must be true or false/],
    [{ path: '/metrics' }, /^metrics\.path must be path segments/],
    [{ path: 'a//b' }, /^metrics\.path must be path segments/],
    [{ paht: 'x' }, /^Unknown option metrics\.paht/],
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
