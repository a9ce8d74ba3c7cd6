/**
 * When the broker fsyncs the journal record of a publish, like Redis's `appendfsync`
 * (docs/storage.md#flush-policy-fsync). `always`: before the ACK, so an ACK means durable. `interval`: within the
 * broker's `persistence.fsyncIntervalMs` after the write, so an ACK means written to the page cache, durable
 * within the interval; a process crash loses nothing, a power loss at most that interval. `never`: only with the
 * next fsync something else makes (a flush, an `always` commit), for tests and scratch topics.
 */
export type FsyncMode = 'always' | 'interval' | 'never';
export const FSYNC_MODES: readonly FsyncMode[] = ['always', 'interval', 'never'];

/** The strictest of two modes: a commit holding parts of both is fsync'd as the stricter asks. */
export function stricterFsync(a: FsyncMode, b: FsyncMode): FsyncMode {
  return FSYNC_MODES.indexOf(a) <= FSYNC_MODES.indexOf(b) ? a : b;
}
