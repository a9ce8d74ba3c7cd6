import type { Command } from 'commander';
import type { CommandContext } from '../command-context';
import { nonNegativeInteger, positiveInteger } from '../parse-integer';
import { waitOrAbort } from '../wait-or-abort';

/** How often `tail --follow` asks for new messages once it has read everything: quick, without busy polling. */
export const DEFAULT_TAIL_POLL_MS = 500;
/** Messages per request: the broker's largest page. */
const PAGE_SIZE = 1000;

interface TailOptions {
  from?: number;
  follow?: boolean;
  pollMs: number;
}

interface MessageJson {
  offset: number;
  id: string;
  headers: Record<string, unknown>;
  publishedAt: number | null;
  content: unknown;
}

interface MessagePageJson {
  messages: MessageJson[];
  corrupt: number[];
  nextFrom: number;
  tailOffset: number;
}

/**
 * `mmmq tail <topic>`: prints a topic's messages from `--from` (default the oldest kept) to its end, one a line, and
 * with `--follow` keeps printing new ones until Ctrl-C. Reads through `GET /mmmq/topics/{topic}/messages`: no
 * subscription, nothing is consumed.
 */
export function registerTailCommand(program: Command, context: CommandContext): void {
  program
    .command('tail')
    .description('print the messages of a topic by offset (nothing is consumed); --follow waits for new ones')
    .argument('<topic>', 'topic name')
    .option('--from <offset>', 'first offset to print (default: the oldest kept)', nonNegativeInteger('--from'))
    .option('-f, --follow', 'keep printing new messages until Ctrl-C')
    .option('--poll-ms <ms>', 'how often --follow asks for new messages', positiveInteger('--poll-ms'), DEFAULT_TAIL_POLL_MS)
    .action(async (topic: string, options: TailOptions, command: Command) => {
      const client = context.client(command);
      const json = context.globals(command).json;
      const { io } = context;
      let from = options.from;
      for (;;) {
        const query = `${from === undefined ? '' : `from=${from}&`}limit=${PAGE_SIZE}`;
        let page: MessagePageJson;
        try {
          page = await client.get<MessagePageJson>(`/mmmq/topics/${encodeURIComponent(topic)}/messages?${query}`);
        } catch (error) {
          if (io.signal?.aborted) return;
          throw error;
        }
        for (const message of page.messages) io.stdout.write((json ? JSON.stringify(message) : describe(message)) + '\n');
        for (const offset of page.corrupt) io.stderr.write(`offset ${offset} is damaged and was skipped\n`);
        from = page.nextFrom;
        if (from < page.tailOffset) continue;
        if (!options.follow || (await waitOrAbort(options.pollMs, io.signal))) return;
      }
    });
}

/** `#17 2026-11-30T22:40:00.000Z order-42 {"priority":5} {"orderId":42}`. */
function describe(message: MessageJson): string {
  const published = message.publishedAt === null ? '-' : new Date(message.publishedAt).toISOString();
  return `#${message.offset} ${published} ${message.id} ${JSON.stringify(message.headers)} ${JSON.stringify(message.content)}`;
}
