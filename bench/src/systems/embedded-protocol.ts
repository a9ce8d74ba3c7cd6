import type { BenchConfig } from '../config';
import type { EmbeddedPhase } from '../workloads/embedded-phases';
import type { RoundOutcome } from '../workloads/workload';

/**
 * The bench ↔ embedded app messages over the child's IPC channel: one phase at a time, never one message per
 * publish. The app asks the bench to start and stop sampling its CPU around the measured part of the phase (the same
 * points at which the peers' phases sample their server), and waits for the answer before going on.
 */
export type ToEmbeddedApp =
  /** Run `phase`, publishing to `topic`, with the round's configuration. */
  | { kind: 'run'; phase: EmbeddedPhase; topic: string; config: BenchConfig }
  /** The bench has read the app's CPU counters (`'start'` or `'stop'`, as asked). */
  | { kind: 'sampled' };

export type FromEmbeddedApp =
  /** The app is up and its listener subscribed. */
  | { kind: 'ready' }
  | { kind: 'sample'; at: 'start' | 'stop' }
  | { kind: 'done'; outcome: RoundOutcome }
  | { kind: 'failed'; message: string };
