import { AgedSegment, planRetention, RetentionInput } from '../../src/retention/retention-plan';

const NOW = 1_000_000;
/** Closed segments of 10 offsets and 100 bytes each, the oldest written `ages[0]` ms ago. */
function segments(...ages: number[]): AgedSegment[] {
  return ages.map((age, i) => ({ startOffset: i * 10, endOffset: (i + 1) * 10, bytes: 100, dataPath: `seg-${i}`, modifiedAt: NOW - age }));
}
const input = (overrides: Partial<RetentionInput>): RetentionInput => ({
  segments: segments(0, 0, 0),
  totalBytes: 400, // three closed segments and a tail of 100 bytes
  now: NOW,
  retention: { ms: null, bytes: null },
  neededFrom: Infinity,
  ...overrides,
});

describe('planRetention', () => {
  it('deletes nothing without limits', () => {
    expect(planRetention(input({}))).toEqual({ deleteEnd: 0, count: 0, heldBytes: 0 });
  });

  it('deletes the oldest segments while the topic holds more than retention.bytes', () => {
    expect(planRetention(input({ retention: { ms: null, bytes: 250 } }))).toEqual({ deleteEnd: 20, count: 2, heldBytes: 0 });
    expect(planRetention(input({ retention: { ms: null, bytes: 50 } }))).toEqual({ deleteEnd: 30, count: 3, heldBytes: 0 });
    expect(planRetention(input({ retention: { ms: null, bytes: 400 } }))).toEqual({ deleteEnd: 0, count: 0, heldBytes: 0 });
  });

  it('deletes segments whose newest message is older than retention.ms, only as a run from the oldest', () => {
    expect(planRetention(input({ segments: segments(500, 300, 100), retention: { ms: 200, bytes: null } }))).toMatchObject({
      deleteEnd: 20,
      count: 2,
    });
    // A younger segment first stops the run (segments are written in order, so this only follows a clock jump).
    expect(planRetention(input({ segments: segments(100, 500), retention: { ms: 200, bytes: null } }))).toMatchObject({ count: 0 });
    // Exactly at the limit is not older than it.
    expect(planRetention(input({ segments: segments(200), retention: { ms: 200, bytes: null } }))).toMatchObject({ count: 0 });
  });

  it('keeps the segments a subscription has not passed and counts their bytes as held', () => {
    const plan = planRetention(input({ retention: { ms: null, bytes: 50 }, neededFrom: 15 }));
    expect(plan).toEqual({ deleteEnd: 10, count: 1, heldBytes: 200 });
    // A cursor exactly at a segment's end has passed it.
    expect(planRetention(input({ retention: { ms: null, bytes: 50 }, neededFrom: 20 }))).toEqual({
      deleteEnd: 20,
      count: 2,
      heldBytes: 100,
    });
    expect(planRetention(input({ retention: { ms: null, bytes: 50 }, neededFrom: 0 }))).toEqual({ deleteEnd: 0, count: 0, heldBytes: 300 });
  });

  it('holds nothing when nothing is due, whatever the subscriptions', () => {
    expect(planRetention(input({ retention: { ms: null, bytes: 1000 }, neededFrom: 0 }))).toEqual({ deleteEnd: 0, count: 0, heldBytes: 0 });
  });
});
