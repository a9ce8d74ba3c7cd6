import fc from 'fast-check';
import { BrokerResponseError, BrokerUnreachableError } from '../../src';
import { isTransient, RetryPolicy } from '../../src/retry/retry-policy';

const answered = (status: number, retryAfterMs?: number) =>
  new BrokerResponseError(`answered ${status}`, { status, reason: '', retryAfterMs });
const noJitter = () => 0;
const fullJitter = () => 0.999_999;

describe('RetryPolicy', () => {
  describe('isTransient', () => {
    it.each([200, 201, 408, 429, 500, 502, 503, 504])('retries an answer with status %i', (status) => {
      expect(isTransient(answered(status))).toBe(true);
    });

    it.each([301, 307, 400, 401, 403, 404, 409, 413, 415, 422])('does not retry status %i', (status) => {
      expect(isTransient(answered(status))).toBe(false);
    });

    it('retries when the broker could not be reached or did not answer in time', () => {
      expect(isTransient(new BrokerUnreachableError('connect ECONNREFUSED'))).toBe(true);
    });

    it('does not retry errors from neither the broker nor the network', () => {
      expect(isTransient(new TypeError('bug'))).toBe(false);
      expect(isTransient('a string')).toBe(false);
    });
  });

  describe('shouldRetry', () => {
    const policy = new RetryPolicy({ maxRetryCount: 3, retryDelayMs: 100, maxRetryDelayMs: 5000 });

    it('allows maxRetryCount retries after the first attempt, so 1 + maxRetryCount attempts in all', () => {
      expect([1, 2, 3, 4].map((attempts) => policy.shouldRetry(answered(503), attempts))).toEqual([true, true, true, false]);
    });

    it('never retries a permanent failure, however many attempts remain', () => {
      expect(policy.shouldRetry(answered(400), 1)).toBe(false);
    });

    it('never retries with maxRetryCount 0', () => {
      const once = new RetryPolicy({ maxRetryCount: 0, retryDelayMs: 100, maxRetryDelayMs: 5000 });
      expect(once.shouldRetry(new BrokerUnreachableError('down'), 1)).toBe(false);
    });
  });

  describe('delayMs', () => {
    const options = { maxRetryCount: 10, retryDelayMs: 100, maxRetryDelayMs: 1000 };

    it('doubles from retryDelayMs and stops at maxRetryDelayMs', () => {
      const policy = new RetryPolicy(options, noJitter);
      expect([1, 2, 3, 4, 5, 6].map((retry) => policy.delayMs(retry, answered(200)))).toEqual([100, 200, 400, 800, 1000, 1000]);
    });

    it('takes at most 20 % off at random', () => {
      const policy = new RetryPolicy(options, fullJitter);
      expect(policy.delayMs(1, answered(200))).toBe(80);
      expect(policy.delayMs(6, answered(200))).toBe(800);
    });

    it('waits as long as Retry-After asks when that is longer than the backoff', () => {
      const policy = new RetryPolicy(options, noJitter);
      expect(policy.delayMs(1, answered(503, 700))).toBe(700);
      expect(policy.delayMs(4, answered(503, 10))).toBe(800);
    });

    it('bounds a Retry-After by maxRetryDelayMs', () => {
      const policy = new RetryPolicy(options, noJitter);
      expect(policy.delayMs(1, answered(503, 3_600_000))).toBe(1000);
    });

    it('stays within [0, maxRetryDelayMs] for any options, retry, jitter and Retry-After', () => {
      fc.assert(
        fc.property(
          fc.nat({ max: 100_000 }),
          fc.nat({ max: 100_000 }),
          fc.integer({ min: 1, max: 200 }),
          fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
          fc.option(fc.nat({ max: 10_000_000 }), { nil: undefined }),
          (retryDelayMs, maxRetryDelayMs, retry, random, retryAfterMs) => {
            const policy = new RetryPolicy({ maxRetryCount: 200, retryDelayMs, maxRetryDelayMs }, () => random);
            const delay = policy.delayMs(retry, answered(503, retryAfterMs));
            expect(Number.isInteger(delay)).toBe(true);
            expect(delay).toBeGreaterThanOrEqual(0);
            expect(delay).toBeLessThanOrEqual(maxRetryDelayMs);
          },
        ),
      );
    });
  });
});
