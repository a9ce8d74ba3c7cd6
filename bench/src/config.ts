import { parseArgs, ParseArgsConfig } from 'node:util';

export interface BenchConfig {
  quick: boolean;
  /** outbox-inbox: the writers on a worker thread of their own instead of the bench's event loop. */
  outboxWritersThread: boolean;
  rounds: number;
  /** Workload ids to run (all when empty). */
  only: string[];
  /** System ids to run (all when empty). */
  systems: string[];
  /** Messages per workload round. */
  publishOne: number;
  publishWindow: number;
  e2e: number;
  rateSeconds: number;
  ratePerSecond: number;
  fanout: number;
  /** Messages per round of the competing-consumers workload (3 consumers sharing one queue). */
  competing: number;
  /** Messages per round of the pull workload (fetch 100, acknowledge the batch). */
  pull: number;
  /** How long the plain-consumer workloads publish at `ratePerSecond`. */
  plainSeconds: number;
  /** Messages per round of each many-topics workload (100 and 1,000 topics). */
  topicsMessages: number;
  /** Messages per round of the plain-publishers workload, and how many publishers send them at once. */
  httpMessages: number;
  httpConnections: number;
  large: number;
  /** Messages per round of the outbox → inbox workload, and the business transactions writing them at once. */
  outboxMessages: number;
  outboxWriters: number;
  backlog: number;
  /** Messages per round of the scheduled workload, each published to be delivered 1 s later. */
  scheduled: number;
  /** Requests per round of the request-reply workload, and how many are in flight at once. */
  requests: number;
  requestConcurrency: number;
  /** Longest a backlog drain is followed; the drain rate is measured over what arrived by then. */
  drainCapSeconds: number;
  /** Unacknowledged publishes at once in every pipelined workload. */
  window: number;
  /** Longest wait for deliveries after the last publish, per round. */
  roundTimeoutSeconds: number;
  size: number;
  largeSize: number;
  /** Markdown report; the chart goes beside it with the same name and `.svg`. */
  out: string;
  /** Re-render the report from a saved results JSON instead of running anything. */
  from?: string;
}

export const FULL: Omit<BenchConfig, 'quick' | 'outboxWritersThread' | 'only' | 'systems' | 'out' | 'from'> = {
  rounds: 3,
  publishOne: 10_000,
  publishWindow: 100_000,
  e2e: 200_000,
  rateSeconds: 10,
  ratePerSecond: 5_000,
  fanout: 50_000,
  competing: 100_000,
  pull: 100_000,
  plainSeconds: 30,
  topicsMessages: 100_000,
  httpMessages: 100_000,
  httpConnections: 64,
  large: 10_000,
  outboxMessages: 20_000,
  outboxWriters: 16,
  backlog: 1_000_000,
  scheduled: 100_000,
  requests: 20_000,
  requestConcurrency: 32,
  drainCapSeconds: 120,
  window: 1_000,
  roundTimeoutSeconds: 300,
  size: 1024,
  largeSize: 64 * 1024,
};

/** Small enough for a smoke test of every path in a few minutes; the figures mean little. */
const QUICK: typeof FULL = {
  ...FULL,
  publishOne: 200,
  publishWindow: 2_000,
  e2e: 1_000,
  rateSeconds: 1,
  fanout: 500,
  competing: 1_000,
  pull: 1_000,
  plainSeconds: 2,
  topicsMessages: 2_000,
  httpMessages: 2_000,
  large: 100,
  outboxMessages: 2_000,
  backlog: 5_000,
  scheduled: 2_000,
  requests: 500,
  drainCapSeconds: 10,
  roundTimeoutSeconds: 20,
};

const NUMERIC: Record<string, keyof typeof FULL> = {
  rounds: 'rounds',
  'publish-one': 'publishOne',
  'publish-window': 'publishWindow',
  e2e: 'e2e',
  messages: 'e2e',
  'rate-seconds': 'rateSeconds',
  rate: 'ratePerSecond',
  fanout: 'fanout',
  competing: 'competing',
  pull: 'pull',
  'plain-seconds': 'plainSeconds',
  'topics-messages': 'topicsMessages',
  'http-messages': 'httpMessages',
  'http-connections': 'httpConnections',
  large: 'large',
  'outbox-messages': 'outboxMessages',
  'outbox-writers': 'outboxWriters',
  backlog: 'backlog',
  scheduled: 'scheduled',
  requests: 'requests',
  'request-concurrency': 'requestConcurrency',
  'drain-cap-seconds': 'drainCapSeconds',
  window: 'window',
  'round-timeout-seconds': 'roundTimeoutSeconds',
};

export const USAGE = `pnpm bench [--quick] [--rounds=3] [--only=workload,…] [--systems=system,…] [--out=docs/benchmarks.md]
           [--from=bench/results/….json (only re-render the report from a saved run)]
           [--e2e=N (or --messages=N)] [--publish-one=N] [--publish-window=N] [--rate-seconds=S] [--rate=R]
           [--fanout=N] [--competing=N] [--pull=N] [--plain-seconds=S] [--topics-messages=N] [--http-messages=N] [--http-connections=N] [--large=N]
           [--outbox-messages=N] [--outbox-writers=N] [--outbox-writers-thread] [--backlog=N] [--drain-cap-seconds=S]
           [--scheduled=N] [--requests=N] [--request-concurrency=N] [--window=N] [--round-timeout-seconds=S]`;

/** A value with `_` separators (`--e2e=200_000`), or plain digits. */
const POSITIVE_INTEGER = /^\d+(_\d+)*$/;
const LIST_OPTIONS = ['only', 'systems'] as const;

/**
 * Reads `pnpm bench`'s arguments with Node's `util.parseArgs` (strict: an unknown option or a stray value is an
 * error): `--name=value` or `--name value`. A bare `--`, which some ways of running a script pass along, is ignored.
 *
 * @throws Error naming the argument, followed by {@link USAGE}
 */
export function parseBenchArgs(argv: string[]): BenchConfig {
  const options: ParseArgsConfig['options'] = {
    quick: { type: 'boolean' },
    'outbox-writers-thread': { type: 'boolean' },
    only: { type: 'string' },
    systems: { type: 'string' },
    out: { type: 'string' },
    from: { type: 'string' },
    ...Object.fromEntries(Object.keys(NUMERIC).map((name) => [name, { type: 'string' as const }])),
  };
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    ({ values } = parseArgs({ args: argv.filter((arg) => arg !== '--'), options, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${USAGE}`, { cause: error });
  }
  const quick = values.quick === true;
  const config: BenchConfig = {
    ...(quick ? QUICK : FULL),
    quick,
    outboxWritersThread: values['outbox-writers-thread'] === true,
    only: [],
    systems: [],
    out: 'docs/benchmarks.md',
  };
  for (const name of LIST_OPTIONS) {
    const value = values[name];
    if (typeof value === 'string') config[name] = value.split(',').filter(Boolean);
  }
  if (typeof values.out === 'string') config.out = values.out;
  if (typeof values.from === 'string') config.from = values.from;
  for (const [name, key] of Object.entries(NUMERIC)) {
    const value = values[name];
    if (typeof value !== 'string') continue;
    const n = Number(value.replace(/_/g, ''));
    if (!POSITIVE_INTEGER.test(value) || !Number.isSafeInteger(n) || n <= 0) {
      throw new Error(`--${name} needs a positive integer, got ${JSON.stringify(value)}\n${USAGE}`);
    }
    config[key] = n;
  }
  return config;
}
