import { PushSizeLimit } from '../../src/dispatch/push-size-limit';

const PROBE_MS = 1_000;
const MEMORY_MS = 10_000;
const BATCH_SIZE = 500;

/** One window pushed through `limit` to a consumer that answers 413 above `max` messages: the sizes tried, until one is taken. */
function pushTo(limit: PushSizeLimit, max: number): { sizes: number[]; refusals: number } {
  const sizes: number[] = [];
  let refusals = 0;
  for (;;) {
    const size = limit.next(BATCH_SIZE);
    sizes.push(size);
    if (size <= max) {
      limit.accepted(size);
      return { sizes, refusals };
    }
    refusals++;
    limit.tooLarge(size);
  }
}

describe('PushSizeLimit (what a 413 teaches about a push host)', () => {
  let now = 0;
  let limit: PushSizeLimit;
  beforeEach(() => {
    now = 0;
    limit = new PushSizeLimit({ probeIntervalMs: PROBE_MS, memoryMs: MEMORY_MS }, () => now);
  });

  it('pushes batchSize while nothing was refused', () => {
    expect(limit.next(BATCH_SIZE)).toBe(BATCH_SIZE);
    limit.accepted(BATCH_SIZE);
    expect(limit.next(BATCH_SIZE)).toBe(BATCH_SIZE);
    expect(limit.limitBelow(BATCH_SIZE)).toBeUndefined();
  });

  it('halves a refused push down to a size the consumer takes, and keeps that size without another 413', () => {
    const first = pushTo(limit, 10);
    expect(first.sizes).toEqual([500, 250, 125, 62, 31, 15, 7]);
    expect(limit.limitBelow(BATCH_SIZE)).toBe(7);
    for (let window = 0; window < 100; window++) expect(pushTo(limit, 10)).toEqual({ sizes: [7], refusals: 0 });
  });

  it('probes once per interval halfway to the smallest size refused, then holds the exact limit', () => {
    pushTo(limit, 10);
    now += PROBE_MS;
    // 7 works, 15 was refused: 11 is tried and refused, then (an interval later) 9 and 10 work.
    expect(pushTo(limit, 10)).toEqual({ sizes: [11, 7], refusals: 1 });
    expect(pushTo(limit, 10).sizes).toEqual([7]);
    now += PROBE_MS;
    expect(pushTo(limit, 10).sizes).toEqual([9]);
    expect(pushTo(limit, 10).sizes).toEqual([10]);
    now += MEMORY_MS - 1 - 2 * PROBE_MS;
    expect(pushTo(limit, 10).sizes).toEqual([10]);
  });

  it('tries the refused size again after the memory time, and grows by doubling once the consumer takes it', () => {
    pushTo(limit, 10);
    now += PROBE_MS;
    pushTo(limit, 10);
    now += PROBE_MS;
    pushTo(limit, 10);
    pushTo(limit, 10);
    // The consumer's limit is raised to 100: 11 is accepted after the memory time, then the size doubles.
    now += MEMORY_MS;
    const sizes = [pushTo(limit, 100), pushTo(limit, 100), pushTo(limit, 100), pushTo(limit, 100)].map(({ sizes }) => sizes);
    expect(sizes).toEqual([[11], [22], [44], [88]]);
    expect(pushTo(limit, 100)).toEqual({ sizes: [176, 88], refusals: 1 });
  });

  it('never goes below one message', () => {
    expect(limit.tooLarge(3)).toBe(1);
    expect(limit.tooLarge(1)).toBe(1);
    expect(limit.next(BATCH_SIZE)).toBe(1);
  });

  it('forgets the refusals that isolated a single message too large by itself: back to batchSize', () => {
    limit.tooLarge(500);
    limit.tooLarge(250);
    limit.messageTooLarge();
    expect(limit.next(BATCH_SIZE)).toBe(BATCH_SIZE);
  });

  it('follows a smaller batchSize', () => {
    pushTo(limit, 10);
    expect(limit.next(5)).toBe(5);
    expect(limit.limitBelow(5)).toBeUndefined();
  });
});
