import type { Command } from 'commander';
import type { CommandContext } from '../command-context';
import { printJson, printTable } from '../output';

interface TopicJson {
  name: string;
  startOffset: number;
  tailOffset: number;
  messages: number;
  bytes: number;
  segments: number;
  subscriptions?: unknown[];
}

/** `mmmq topics`: every topic with its offsets, size and subscriptions (`GET /mmmq/topics`). */
export function registerTopicsCommand(program: Command, context: CommandContext): void {
  program
    .command('topics')
    .description('list the topics: offsets, messages, bytes on disk, segments, subscriptions')
    .action(async (_options: object, command: Command) => {
      const body = await context.client(command).get<{ topics: TopicJson[] }>('/mmmq/topics');
      if (context.globals(command).json) return printJson(context.io, body);
      printTable(
        context.io,
        ['topic', 'messages', 'start offset', 'tail offset', 'bytes', 'segments', 'subscriptions'],
        body.topics.map((topic) => [
          topic.name,
          topic.messages,
          topic.startOffset,
          topic.tailOffset,
          topic.bytes,
          topic.segments,
          topic.subscriptions?.length ?? 0,
        ]),
        '(no topics)',
      );
    });
}
