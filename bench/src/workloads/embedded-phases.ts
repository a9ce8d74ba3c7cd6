import type { BenchConfig } from '../config';
import type { MessagePath } from '../systems/system';
import { endToEnd } from './end-to-end';
import { publishOneAtATime } from './one-at-a-time';
import { openLoopEndToEnd } from './open-loop';
import type { RoundContext, RoundOutcome } from './workload';

/**
 * The embedded workload's three measurements, in the order they run: confirmed produce one at a time, end to
 * end at saturation, end to end at a fixed rate. The same code runs them for the peers in the bench process and for
 * MMMQ inside its one-app process, so both sides measure exactly the same loop.
 */
export const EMBEDDED_PHASES = ['produce', 'saturation', 'fixed-rate'] as const;
export type EmbeddedPhase = (typeof EMBEDDED_PHASES)[number];

/** Messages a phase publishes: the counts of publish-one, e2e-saturation and e2e-fixed-rate. */
export function phaseMessages(phase: EmbeddedPhase, c: BenchConfig): number {
  switch (phase) {
    case 'produce':
      return c.publishOne;
    case 'saturation':
      return c.e2e;
    case 'fixed-rate':
      return c.ratePerSecond * c.rateSeconds;
  }
}

export function runPhase(phase: EmbeddedPhase, path: MessagePath, ctx: RoundContext): Promise<RoundOutcome> {
  const c = ctx.config;
  const messages = phaseMessages(phase, c);
  switch (phase) {
    case 'produce':
      return publishOneAtATime(path, ctx, messages);
    case 'saturation':
      return endToEnd(path, ctx, { messages, size: c.size, topics: 1, groups: 1 });
    case 'fixed-rate':
      return openLoopEndToEnd(path, ctx, messages, c.ratePerSecond);
  }
}

/**
 * The topic of a phase in MMMQ's app: the end-to-end phases under `<prefix>.e2e.`, which its one listener subscribes to
 * ({@link embeddedPattern}); the produce phase beside it, with no subscriber, as publish-one has none.
 */
export function embeddedTopic(prefix: string, phase: EmbeddedPhase): string {
  return phase === 'produce' ? `${prefix}.produce` : `${prefix}.e2e.${phase}`;
}

export const embeddedPattern = (prefix: string) => `${prefix}.e2e.*`;
