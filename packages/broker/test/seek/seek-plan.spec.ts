import { seekCounts, seekSnapshot } from '../../src/seek/seek-plan';

describe('the plan of a seek', () => {
  const current = {
    cursor: 10,
    settled: [[12, 14] as [number, number], [20, 21] as [number, number]],
    counts: [{ offset: 11, deliveries: 3, nacks: 1 }],
    deliveredMark: 25,
  };

  it('counts what a seek back re-delivers: everything settled from the target on', () => {
    expect(seekCounts(current, 4, 30)).toEqual({ redeliver: 6 + 3, skip: 0 });
  });

  it('counts both ways for a target inside the window: unsettled before it skipped, settled from it on re-delivered', () => {
    expect(seekCounts(current, 13, 30)).toEqual({ redeliver: 2, skip: 2 });
  });

  it('counts what a seek forward skips: everything unsettled before the target', () => {
    expect(seekCounts(current, 30, 30)).toEqual({ redeliver: 0, skip: 20 - 3 });
    expect(seekCounts(current, 10, 30)).toEqual({ redeliver: 3, skip: 0 });
  });

  it('writes a fresh window at the target that keeps the delivery mark (replayed messages read as redelivered)', () => {
    expect(seekSnapshot(current, 4)).toEqual({ cursor: 4, settled: [], counts: [], deliveredMark: 25 });
    expect(seekSnapshot(current, 30)).toEqual({ cursor: 30, settled: [], counts: [], deliveredMark: 30 });
  });
});
