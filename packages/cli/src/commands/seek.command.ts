import { MmmqValidationError, parseSeekPosition, type SeekPosition } from '@mmmq/core';
import type { Command } from 'commander';
import { UsageError } from '../cli.errors';
import type { CommandContext } from '../command-context';
import { printJson, printTable } from '../output';
import { nonNegativeInteger } from '../parse-integer';

interface SeekOptions {
  topic?: string;
  offset?: number;
  time?: string;
  beginning?: boolean;
  end?: boolean;
  dryRun?: boolean;
  force?: boolean;
  member?: string;
}

interface SeekRowJson {
  topic: string;
  from: number;
  to: number;
  redeliver: number;
  skip: number;
  released: number;
}

interface SeekResultJson {
  dryRun: boolean;
  redeliver: number;
  skip: number;
  released: number;
  subscriptions: SeekRowJson[];
}

/** `mmmq seek <consumerId>`: moves a consumer's subscriptions (`POST /mmmq/consumers/{consumerId}/seek`). */
export function registerSeekCommand(program: Command, context: CommandContext): void {
  program
    .command('seek')
    .description(
      "move a consumer's subscriptions to an offset, a time, the beginning or the end (re-delivering or skipping messages); " +
        'its leases end. Give exactly one of --offset, --time, --beginning, --end',
    )
    .argument('<consumerId>', 'the consumer id')
    .option('--topic <topic>', 'only this topic (default: every topic the consumer reads, the broker’s own __ topics aside)')
    .option('--offset <n>', 'to this offset (kept within what the topic retains)', nonNegativeInteger('--offset'))
    .option('--time <iso>', 'to the first message published at or after this ISO 8601 time, with its zone (2026-12-07T10:00:00Z)')
    .option('--beginning', 'to the oldest message retained')
    .option('--end', 'past the last message: only what is published from now on')
    .option('--dry-run', 'only count what it would re-deliver and skip; change nothing (default: off)')
    .option('--force', 'seek even while another member holds an exclusive subscription (default: off, answered 409)')
    .option('--member <id>', 'the member seeking: an exclusive subscription it holds itself does not refuse it')
    .action(async (consumerId: string, options: SeekOptions, command: Command) => {
      const body = {
        to: positionOf(options),
        ...(options.topic === undefined ? {} : { topic: options.topic }),
        ...(options.dryRun === true ? { dryRun: true } : {}),
        ...(options.force === true ? { force: true } : {}),
        ...(options.member === undefined ? {} : { member: options.member }),
      };
      const result = await context.client(command).post<SeekResultJson>(`/mmmq/consumers/${encodeURIComponent(consumerId)}/seek`, body);
      if (context.globals(command).json) return printJson(context.io, result);
      printTable(
        context.io,
        ['topic', 'from', 'to', 're-deliver', 'skip', 'leases ended'],
        result.subscriptions.map((row) => [row.topic, row.from, row.to, row.redeliver, row.skip, row.released]),
        `(${consumerId} reads no topic yet)`,
      );
      const verb = result.dryRun ? 'Would re-deliver' : 'Re-delivers';
      const ended = result.dryRun ? `would end ${result.released} leases` : `ended ${result.released} leases`;
      context.io.stdout.write(`${verb} ${result.redeliver} and skip ${result.skip} message(s) of ${consumerId}; ${ended}\n`);
    });
}

/** Exactly one of the position options, as the broker reads it. */
function positionOf(options: SeekOptions): SeekPosition {
  const given: unknown[] = [
    ...(options.offset === undefined ? [] : [{ offset: options.offset }]),
    ...(options.time === undefined ? [] : [{ time: options.time }]),
    ...(options.beginning === true ? ['beginning'] : []),
    ...(options.end === true ? ['end'] : []),
  ];
  if (given.length !== 1) throw new UsageError(`Give exactly one of --offset, --time, --beginning, --end (got ${given.length})`);
  try {
    return parseSeekPosition('position', given[0]);
  } catch (error) {
    if (error instanceof MmmqValidationError) throw new UsageError(error.message.replace(/^position\.time/, '--time'));
    throw error;
  }
}
