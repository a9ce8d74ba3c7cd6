import { InvalidBrokerOptionsError } from '../../src';
import { DEFAULT_HEALTH_PATH, resolveHealthOptions } from '../../src/health/health.options';

describe('the health option', () => {
  it('is on at /health by default, and off with enabled false', () => {
    expect(resolveHealthOptions({})).toEqual({ enabled: true, path: DEFAULT_HEALTH_PATH });
    expect(resolveHealthOptions({ enabled: false })).toEqual({ enabled: false });
    expect(resolveHealthOptions({ path: 'ops/probes' })).toEqual({ enabled: true, path: 'ops/probes' });
  });

  it.each([
    [{ enabled: 'yes' }, /^health\.enabled must be true or false/],
    [{ path: '/health' }, /^health\.path must be path segments/],
    [{ path: 'a//b' }, /^health\.path must be path segments/],
    [{ paht: 'x' }, /^Unknown option health\.paht/],
    ['on', /^health must be an object/],
  ])('refuses %p, naming the option', (given, message) => {
    expect(() => resolveHealthOptions(given)).toThrow(InvalidBrokerOptionsError);
    expect(() => resolveHealthOptions(given)).toThrow(message);
  });
});
