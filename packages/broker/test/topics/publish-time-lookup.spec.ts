import { firstOffsetAtOrAfter, PublishTimeAt, UNTIMED_PROBE_MAX } from '../../src/topics/publish-time-lookup';

/** A log of publish times (undefined: an entry without one), read through a counter of probes. */
function log(times: Array<number | undefined>): { timeAt: PublishTimeAt; probes: () => number } {
  let probes = 0;
  return {
    timeAt: async (offset) => {
      probes++;
      return times[offset];
    },
    probes: () => probes,
  };
}

describe('the time lookup of a seek', () => {
  it('finds the first offset published at or after a time, with O(log n) reads, never a scan', async () => {
    const size = 1_000_000;
    // Ten messages per millisecond from t = 5,000, so several share each time.
    const times = Array.from({ length: size }, (_, offset) => 5_000 + Math.floor(offset / 10));
    const { timeAt, probes } = log(times);
    expect(await firstOffsetAtOrAfter(5_000 + 12_345, 0, size, timeAt)).toBe(123_450);
    expect(probes()).toBeLessThanOrEqual(Math.ceil(Math.log2(size)) + 1);
  });

  it('answers the start before every message, the end after every message, and works within a retained range', async () => {
    const { timeAt } = log([10, 20, 30, 40, 50, 60]);
    expect(await firstOffsetAtOrAfter(0, 0, 6, timeAt)).toBe(0);
    expect(await firstOffsetAtOrAfter(61, 0, 6, timeAt)).toBe(6);
    expect(await firstOffsetAtOrAfter(30, 0, 6, timeAt)).toBe(2);
    expect(await firstOffsetAtOrAfter(31, 0, 6, timeAt)).toBe(3);
    expect(await firstOffsetAtOrAfter(15, 3, 6, timeAt)).toBe(3);
    expect(await firstOffsetAtOrAfter(15, 4, 4, timeAt)).toBe(4);
  });

  it('walks past entries without a publish time (corrupt ones) and, past too many, re-delivers rather than skips', async () => {
    const gaps = [10, 20, undefined, undefined, 30, 40, undefined, 50];
    expect(await firstOffsetAtOrAfter(30, 0, gaps.length, log(gaps).timeAt)).toBeLessThanOrEqual(4);
    expect(await firstOffsetAtOrAfter(30, 0, gaps.length, log(gaps).timeAt)).toBeGreaterThanOrEqual(2);
    expect(await firstOffsetAtOrAfter(45, 0, gaps.length, log(gaps).timeAt)).toBe(6);
    const untimed = [1, ...Array<undefined>(UNTIMED_PROBE_MAX * 4).fill(undefined), 99];
    // Nothing tells where the time lies in the long untimed run: the answer is before all of it, never after.
    expect(await firstOffsetAtOrAfter(50, 0, untimed.length, log(untimed).timeAt)).toBeLessThanOrEqual(1);
  });
});
