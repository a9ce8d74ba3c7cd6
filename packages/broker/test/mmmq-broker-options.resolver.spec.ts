import { resolve } from 'node:path';
import { InvalidBrokerOptionsError } from '../src/invalid-broker-options.error';
import { MAX_BODY_BYTES_LIMIT, resolveBrokerOptions } from '../src/mmmq-broker-options.resolver';
import {
  DEFAULT_MAX_BATCH_MESSAGES,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_JSON_DEPTH,
  DEFAULT_ROOT_DIR,
  DEFAULT_SEGMENT_MAX_BYTES,
  MmmqBrokerOptions,
} from '../src/mmmq-broker.options';

describe('resolveBrokerOptions', () => {
  it('fills every default, with an absolute root directory', () => {
    expect(resolveBrokerOptions()).toEqual({
      persistence: { rootDir: resolve(DEFAULT_ROOT_DIR), segmentMaxBytes: DEFAULT_SEGMENT_MAX_BYTES },
      http: {
        maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
        maxJsonDepth: DEFAULT_MAX_JSON_DEPTH,
        maxBatchMessages: DEFAULT_MAX_BATCH_MESSAGES,
      },
    });
  });

  it('keeps the values given', () => {
    const resolved = resolveBrokerOptions({
      persistence: { rootDir: '/data/mmmq', segment: { maxBytes: 4096 } },
      http: { maxBodyBytes: 10, maxJsonDepth: 2, maxBatchMessages: 3 },
    });
    expect(resolved).toEqual({
      persistence: { rootDir: '/data/mmmq', segmentMaxBytes: 4096 },
      http: { maxBodyBytes: 10, maxJsonDepth: 2, maxBatchMessages: 3 },
    });
  });

  it.each<[MmmqBrokerOptions, RegExp]>([
    [
      { persistence: { segment: { maxBytes: 0 } } },
      /^persistence\.segment\.maxBytes must be a positive integer, got 0$/,
    ],
    [{ persistence: { segment: { maxBytes: 1.5 } } }, /^persistence\.segment\.maxBytes must be a positive integer/],
    [{ persistence: { rootDir: ' ' } }, /^persistence\.rootDir must be a non-blank string/],
    [{ http: { maxBodyBytes: -1 } }, /^http\.maxBodyBytes must be a positive integer/],
    [{ http: { maxBodyBytes: MAX_BODY_BYTES_LIMIT + 1 } }, /^http\.maxBodyBytes must be at most/],
    [{ http: { maxJsonDepth: Number.NaN } }, /^http\.maxJsonDepth must be a positive integer, got NaN$/],
    [{ http: { maxBatchMessages: '10' as unknown as number } }, /^http\.maxBatchMessages .* got "10"$/],
  ])('refuses %j naming the option', (options, message) => {
    expect(() => resolveBrokerOptions(options)).toThrow(InvalidBrokerOptionsError);
    expect(() => resolveBrokerOptions(options)).toThrow(message);
  });
});
