import type { DispatcherDefinitionJson as DispatcherJson } from '@mmmq/broker';
import type { StartFrom } from '@mmmq/core';
import type { Command } from 'commander';
import type { CommandContext } from '../command-context';
import { printJson, printRecord, printTable } from '../output';
import { positiveInteger } from '../parse-integer';
import { collect } from './publish.command';

interface AddOptions {
  host: string[];
  selector?: string;
  startFrom?: string;
  maxDeliveries?: number;
  ackTimeoutMs?: number;
}

/** `mmmq dispatchers list|add|rm`: the consumer ids the broker delivers to (`/mmmq/dispatchers`). */
export function registerDispatchersCommand(program: Command, context: CommandContext): void {
  const dispatchers = program.command('dispatchers').description('list, add and remove dispatchers (push hosts or pull consumers)');

  dispatchers
    .command('list')
    .description('list the dispatchers')
    .action(async (_options: object, command: Command) => {
      const list = await context.client(command).get<DispatcherJson[]>('/mmmq/dispatchers');
      if (context.globals(command).json) return printJson(context.io, list);
      printTable(
        context.io,
        ['consumer id', 'patterns', 'hosts', 'start from', 'max deliveries', 'ack timeout ms', 'selector'],
        list.map((dispatcher) => [
          dispatcher.consumerId,
          (dispatcher.patterns ?? [dispatcher.pattern]).join(', '),
          (dispatcher.hosts ?? (dispatcher.host ? [dispatcher.host] : [])).map(hostUrl).join(', ') || '(pull)',
          typeof dispatcher.startFrom === 'object' ? dispatcher.startFrom.time : dispatcher.startFrom,
          dispatcher.maxDeliveries,
          dispatcher.ackTimeoutMs,
          dispatcher.selector,
        ]),
        '(no dispatchers)',
      );
    });

  dispatchers
    .command('add')
    .description('add a dispatcher: push to --host URLs, or none for a pull consumer')
    .argument('<consumerId>', 'the consumer id')
    .argument('<pattern>', 'topic pattern, e.g. order.* or order.>')
    .option('--host <url>', 'a push host, e.g. http://127.0.0.1:3000 (repeatable)', collect, [])
    .option('--selector <expression>', 'a SQL-92 selector over the headers, e.g. "region = \'EU\'"')
    .option(
      '--start-from <where>',
      'where new subscriptions start: earliest (default), latest, or an ISO 8601 time with its zone (the first message published at or after it)',
    )
    .option('--max-deliveries <n>', 'deliveries before a message is dead-lettered', positiveInteger('--max-deliveries'))
    .option('--ack-timeout-ms <ms>', 'how long a delivery may stay unsettled', positiveInteger('--ack-timeout-ms'))
    .action(async (consumerId: string, pattern: string, options: AddOptions, command: Command) => {
      const hosts = options.host.length === 1 ? { host: options.host[0] } : options.host.length > 1 ? { hosts: options.host } : {};
      const body = {
        consumerId,
        pattern,
        ...hosts,
        selector: options.selector,
        startFrom: startFromOf(options.startFrom),
        maxDeliveries: options.maxDeliveries,
        ackTimeoutMs: options.ackTimeoutMs,
      };
      const created = await context.client(command).post<DispatcherJson>('/mmmq/dispatchers', body);
      if (context.globals(command).json) return printJson(context.io, created);
      printRecord(context.io, created as unknown as Record<string, unknown>);
    });

  dispatchers
    .command('rm')
    .description('remove a dispatcher (its subscriptions and checkpoints go with it)')
    .argument('<consumerId>', 'the consumer id')
    .action(async (consumerId: string, _options: object, command: Command) => {
      await context.client(command).request('DELETE', `/mmmq/dispatchers/${encodeURIComponent(consumerId)}`);
      if (context.globals(command).json) return printJson(context.io, { removed: consumerId });
      context.io.stdout.write(`Removed dispatcher ${consumerId}\n`);
    });
}

function hostUrl(host: NonNullable<DispatcherJson['host']>): string {
  return `${host.protocol}://${host.address}:${host.port}`;
}

/** `earliest` and `latest` as they are; anything else is a time (`{"time"}`), which the broker checks. */
function startFromOf(where: string | undefined): StartFrom | undefined {
  return where === undefined || where === 'earliest' || where === 'latest' ? where : { time: where };
}
