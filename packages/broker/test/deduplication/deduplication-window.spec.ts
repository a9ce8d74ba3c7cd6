import { DeduplicationWindow, PendingCommit } from '../../src/deduplication/deduplication-window';

const WINDOW_MS = 60_000;
const COMMIT: PendingCommit = { whenSettled: () => Promise.resolve() };

/** Entries the window keeps in its publish order, live or stale: what its memory grows with besides the map. */
const ordered = (window: DeduplicationWindow): number => (window as unknown as { order: unknown[] }).order.length;

/** Reserves and commits `count` new ids at `at`, from offset `from` on. */
function commitMany(window: DeduplicationWindow, count: number, at: number, from = 0): void {
  for (let n = 0; n < count; n++) window.committed(window.reserve(`id-${from + n}`, at, COMMIT), from + n);
}

describe('DeduplicationWindow', () => {
  it('keeps nothing of reservations whose commit failed: retries of refused publishes do not grow it', () => {
    const window = new DeduplicationWindow(WINDOW_MS, 100);
    commitMany(window, 1, 0);
    for (let n = 0; n < 10_000; n++) window.failed('retried', window.reserve('retried', n, COMMIT));
    expect(window.stats.remembered).toBe(1);
    expect(ordered(window)).toBe(1);
  });

  it('evicts committed ids at maxIds while an older reservation is still being committed', () => {
    const window = new DeduplicationWindow(WINDOW_MS, 10);
    const slow = window.reserve('slow', 0, COMMIT);
    commitMany(window, 1000, 1);
    expect(window.stats).toEqual({ deduplicated: 0, evicted: 991, remembered: 10 });
    expect(window.lookup('slow', 1)).toBe(slow);
    window.committed(slow, 1000);
    expect(window.lookup('slow', 1)).toMatchObject({ offset: 1000, pending: undefined });
  });

  it('expires committed ids past the window while an older reservation is still being committed', () => {
    const window = new DeduplicationWindow(WINDOW_MS, 100);
    window.reserve('slow', 0, COMMIT);
    commitMany(window, 50, 0);
    commitMany(window, 1, WINDOW_MS + 1, 50);
    expect(window.stats).toEqual({ deduplicated: 0, evicted: 0, remembered: 2 });
    expect(window.lookup('slow', WINDOW_MS + 1)?.pending).toBe(COMMIT);
  });

  it('remembers a reservation committed after later ones until its own window passes', () => {
    const window = new DeduplicationWindow(WINDOW_MS, 100);
    const slow = window.reserve('slow', 0, COMMIT);
    commitMany(window, 1, 10);
    window.committed(slow, 1);
    expect(window.lookup('slow', WINDOW_MS - 1)).toMatchObject({ offset: 1 });
    expect(window.lookup('slow', WINDOW_MS + 1)).toBeUndefined();
  });
});
