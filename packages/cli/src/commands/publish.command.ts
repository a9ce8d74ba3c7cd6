import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { UsageError } from '../cli.errors';
import type { CommandContext } from '../command-context';
import { printJson, printRecord } from '../output';

interface PublishOptions {
  id?: string;
  header: string[];
}

/** `mmmq publish <topic> <json|@file>`: one message, printed back with its ACK (`POST /mmmq/messages`). */
export function registerPublishCommand(program: Command, context: CommandContext): void {
  program
    .command('publish')
    .description('publish one message and print the acknowledgement')
    .argument('<topic>', 'topic name')
    .argument('<content>', 'the content as JSON, or @file to read the JSON from a file')
    .option('--id <id>', "the message id (keep it on retries so consumers can de-duplicate); default: the broker's UUID")
    .option('--header <name=value>', 'a header, as a string; name:=value takes a JSON number or boolean (repeatable)', collect, [])
    .action(async (topic: string, content: string, options: PublishOptions, command: Command) => {
      const body = { topic, content: await readContent(content), id: options.id, headers: parseHeaders(options.header) };
      const ack = await context.client(command).post<Record<string, unknown>>('/mmmq/messages', body);
      if (context.globals(command).json) printJson(context.io, ack);
      else printRecord(context.io, ack);
    });
}

/** Commander's way to gather a repeated option. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

async function readContent(argument: string): Promise<unknown> {
  const fromFile = argument.startsWith('@');
  let text = argument;
  if (fromFile) {
    try {
      text = await readFile(argument.slice(1), 'utf8');
    } catch (cause) {
      throw new UsageError(`Cannot read the content file ${argument.slice(1)}: ${(cause as Error).message}`, { cause });
    }
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    const where = fromFile ? `the file ${argument.slice(1)}` : 'the content argument';
    throw new UsageError(`${where} is not JSON (${(cause as Error).message}); quote a string as '"text"'`, { cause });
  }
}

/** `name=value` is a string header; `name:=value` a JSON number or boolean, as HTTPie writes typed fields. */
function parseHeaders(pairs: readonly string[]): Record<string, string | number | boolean> | undefined {
  if (pairs.length === 0) return undefined;
  const headers: Record<string, string | number | boolean> = {};
  for (const pair of pairs) {
    const typed = /^([^=:]+):=(.*)$/s.exec(pair);
    const plain = /^([^=]+)=(.*)$/s.exec(pair);
    if (typed) {
      const value = parseOrUndefined(typed[2]);
      if (typeof value !== 'number' && typeof value !== 'boolean') {
        throw new UsageError(`--header ${pair}: after := give a number or true/false`);
      }
      headers[typed[1]] = value;
    } else if (plain) headers[plain[1]] = plain[2];
    else throw new UsageError(`--header ${pair}: expected name=value or name:=value`);
  }
  return headers;
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
