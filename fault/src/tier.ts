/** The CI tier runs inside `.ci/run` (minutes); the long tier runs the same scenarios bigger. */
export type FaultTier = 'ci' | 'long';

/** `MMMQ_FAULT_TIER`: `ci` (default) or `long`. */
export const FAULT_TIER_VARIABLE = 'MMMQ_FAULT_TIER';
/** `MMMQ_FAULT_SEED`: replays a run; every random choice of every scenario derives from it. */
export const FAULT_SEED_VARIABLE = 'MMMQ_FAULT_SEED';

export interface TierSizes {
  /** SIGKILLs under load of the crash loop (SIGKILLs during start-up come on top). */
  crashCycles: number;
  /** SIGKILLs of the crash loop under the interval / never flush policies. */
  crashIntervalCycles: number;
  /** SIGKILL + power-cut cycles under load (SIGKILLs during start-up come on top). */
  powerLossCycles: number;
  /** Power-loss cycles (of the above) whose load spans the broker's periodic journal flush. */
  powerLossFlushCycles: number;
  /** A kill cycle ends at its random moment or after this many acknowledgements, whichever comes first. */
  acksPerCycle: number;
  /** Variants (different seeds) of every corruption case; each variant is its own topic. */
  corruptionVariants: number;
  /** Messages published to each corruption topic before it is damaged. */
  corruptionMessagesPerTopic: number;
  /** tmpfs size for the disk-full scenario. */
  diskFullBytes: number;
  /** fast-check runs per fuzzed property. */
  fuzzRuns: number;
  /** fast-check runs of the (slower, file-backed) recovery property. */
  recoveryFuzzRuns: number;
  /** Inputs the transacted-consumption scenario commits (each a transaction with two outputs). */
  transactionInputs: number;
  /** Broker SIGKILLs spread over those transactions (the consumer side is killed too, and alone in some cycles). */
  transactionCycles: number;
  /** How long the bounded-disk scenario publishes and consumes under small retention limits. */
  boundedDiskMs: number;
  /** Broker SIGKILLs of the terminate-crash scenario, each on the headers of a pull terminate's 200. */
  terminateCrashCycles: number;
}

const SIZES: Record<FaultTier, TierSizes> = {
  ci: {
    crashCycles: 40,
    crashIntervalCycles: 20,
    powerLossCycles: 50,
    powerLossFlushCycles: 3,
    acksPerCycle: 6_000,
    corruptionVariants: 2,
    corruptionMessagesPerTopic: 48,
    diskFullBytes: 8 * 1024 * 1024,
    fuzzRuns: 1_000,
    recoveryFuzzRuns: 120,
    transactionInputs: 1_000,
    transactionCycles: 20,
    boundedDiskMs: 60_000,
    terminateCrashCycles: 8,
  },
  long: {
    crashCycles: 270,
    crashIntervalCycles: 120,
    powerLossCycles: 150,
    powerLossFlushCycles: 12,
    // Keeps the history (every message's bytes, in memory) within a few hundred MB over 300 cycles.
    acksPerCycle: 1_500,
    corruptionVariants: 10,
    corruptionMessagesPerTopic: 120,
    diskFullBytes: 32 * 1024 * 1024,
    fuzzRuns: 20_000,
    recoveryFuzzRuns: 1_500,
    transactionInputs: 5_000,
    transactionCycles: 100,
    boundedDiskMs: 600_000,
    terminateCrashCycles: 60,
  },
};

export function faultTier(env: NodeJS.ProcessEnv = process.env): FaultTier {
  const value = env[FAULT_TIER_VARIABLE] ?? 'ci';
  if (value !== 'ci' && value !== 'long') {
    throw new Error(`${FAULT_TIER_VARIABLE} must be ci or long, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function tierSizes(tier: FaultTier = faultTier()): TierSizes {
  return SIZES[tier];
}

/** The run's seed: `MMMQ_FAULT_SEED`, or a fresh one (printed in the report and in every failure). */
export function faultSeed(env: NodeJS.ProcessEnv = process.env): number {
  const text = env[FAULT_SEED_VARIABLE];
  if (text === undefined) return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(text);
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new Error(`${FAULT_SEED_VARIABLE} must be a non-negative integer, got ${JSON.stringify(text)}`);
  }
  return seed;
}
