import { backoffDelay, DEFAULT_BACKOFF, sleep } from '../src/backoff';

describe('backoff', () => {
  it('doubles from 1 s up to 60 s without jitter', () => {
    const noJitter = () => 0;
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20].map((n) => backoffDelay(n, DEFAULT_BACKOFF, noJitter))).toEqual([
      1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000,
    ]);
  });

  it('takes at most 20 % off at random', () => {
    expect(backoffDelay(1, DEFAULT_BACKOFF, () => 0.999)).toBe(800);
    expect(backoffDelay(7, DEFAULT_BACKOFF, () => 0.5)).toBe(54000);
  });

  it('ends a sleep early when aborted', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const sleeping = sleep(60_000, controller.signal);
    controller.abort();
    await sleeping;
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
