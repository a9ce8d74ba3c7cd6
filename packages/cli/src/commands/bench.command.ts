import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { BenchResult, BenchRun } from '../bench/bench-run';
import { BrokerClient } from '../broker-client';
import { UsageError, VerificationFailedError } from '../cli.errors';
import type { CommandContext } from '../command-context';
import { printJson, printTable } from '../output';
import { positiveInteger } from '../parse-integer';
import { ProgressDisplay } from '../progress-display';

/** Messages a bench publishes when neither `--messages` nor `--duration` is given: a few seconds on a laptop. */
export const DEFAULT_BENCH_MESSAGES = 10_000;
/** Publishes in flight at once: enough for group commit to batch fsyncs, as many producers would. */
export const DEFAULT_BENCH_CONCURRENCY = 16;
/** Content padding: a small JSON event. */
export const DEFAULT_BENCH_SIZE = 100;
/** Messages per fetch. */
export const DEFAULT_BENCH_FETCH_MAX = 500;
/** After the last publish, how long the consumer may take to receive the rest before the bench fails. */
export const DEFAULT_BENCH_DRAIN_TIMEOUT_MS = 30_000;
/** How often the progress display is refreshed. */
const PROGRESS_REFRESH_MS = 100;

interface BenchOptions {
  messages?: number;
  duration?: number;
  size: number;
  concurrency: number;
  topic?: string;
  fetchMax: number;
  drainTimeoutMs: number;
}

/**
 * `mmmq bench`: publishes to a fresh topic while a pull consumer fetches and acks, then prints throughput and
 * latency percentiles of publish (request round trip) and end to end (send to fetch). Its dispatcher is removed
 * afterwards; the topic stays. Exits {@link ExitCode.VERIFICATION_FAILED} if a published message never arrived.
 */
export function registerBenchCommand(program: Command, context: CommandContext): void {
  program
    .command('bench')
    .description('publish and consume a load against a running broker; print throughput and latency percentiles')
    .option('-n, --messages <n>', `messages to publish (default ${DEFAULT_BENCH_MESSAGES})`, positiveInteger('--messages'))
    .option('-d, --duration <seconds>', 'publish for this long instead of a number of messages', positiveInteger('--duration'))
    .option('--size <bytes>', 'content padding per message', positiveInteger('--size'), DEFAULT_BENCH_SIZE)
    .option('-c, --concurrency <n>', 'publishes in flight at once', positiveInteger('--concurrency'), DEFAULT_BENCH_CONCURRENCY)
    .option('--topic <name>', 'topic to publish to (default: a fresh bench.<random> topic)')
    .option('--fetch-max <n>', 'messages per fetch', positiveInteger('--fetch-max'), DEFAULT_BENCH_FETCH_MAX)
    .option(
      '--drain-timeout-ms <ms>',
      'how long to wait for the last messages',
      positiveInteger('--drain-timeout-ms'),
      DEFAULT_BENCH_DRAIN_TIMEOUT_MS,
    )
    .action(async (options: BenchOptions, command: Command) => {
      if (options.messages !== undefined && options.duration !== undefined) throw new UsageError('Give --messages or --duration, not both');
      const { io } = context;
      const globals = context.globals(command);
      const suffix = randomUUID().slice(0, 8);
      const plan = {
        topic: options.topic ?? `bench.${suffix}`,
        consumerId: `bench-${suffix}`,
        messages: options.duration === undefined ? (options.messages ?? DEFAULT_BENCH_MESSAGES) : undefined,
        durationMs: options.duration === undefined ? undefined : options.duration * 1000,
        size: options.size,
        concurrency: options.concurrency,
        fetchMax: options.fetchMax,
        drainTimeoutMs: options.drainTimeoutMs,
      };
      const client = context.client(command);
      await client.post('/mmmq/dispatchers', { consumerId: plan.consumerId, pattern: plan.topic, startFrom: 'latest' });
      const run = new BenchRun(client, plan, io.signal);
      const progress = new ProgressDisplay(io, 'bench', plan.messages ?? options.duration ?? 0);
      const showProgress = () =>
        progress.update(plan.messages === undefined ? run.elapsedSeconds : run.published, {
          published: run.published,
          received: run.received,
        });
      const refresh = setInterval(showProgress, PROGRESS_REFRESH_MS);
      let result: BenchResult;
      try {
        result = await run.execute();
      } finally {
        clearInterval(refresh);
        showProgress();
        progress.stop();
        // Not cancelled by Ctrl-C: the bench's dispatcher must not outlive it.
        await new BrokerClient(globals.broker, globals.token)
          .request('DELETE', `/mmmq/dispatchers/${plan.consumerId}`)
          .catch(() => undefined);
      }
      if (globals.json) printJson(io, result);
      else printResult(context, result);
      const missing = result.published - result.received;
      if (missing > 0 && !result.interrupted) {
        throw new VerificationFailedError(`${missing} published message(s) were not received within ${plan.drainTimeoutMs} ms`);
      }
    });
}

function printResult({ io }: CommandContext, result: BenchResult): void {
  io.stdout.write(
    `${result.published} published, ${result.received} received (${result.duplicates} duplicates) in ${(result.elapsedMs / 1000).toFixed(1)} s ` +
      `on topic ${result.topic}${result.interrupted ? ' (interrupted)' : ''}\n`,
  );
  printTable(
    io,
    ['', 'messages', 'msg/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'],
    [
      ['publish', ...row(result.publish)],
      ['end to end', ...row(result.endToEnd)],
    ],
  );
}

function row(summary: BenchResult['publish']): number[] {
  return [summary.count, summary.throughput, summary.p50Ms, summary.p90Ms, summary.p99Ms, summary.maxMs];
}
