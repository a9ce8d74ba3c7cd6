import { UsageError } from '../cli.errors';
import type { Command } from 'commander';
import type { CommandContext } from '../command-context';
import { printJson, printTable } from '../output';
import { nonNegativeInteger, positiveInteger } from '../parse-integer';
import { collect } from './publish.command';

interface DeadLetterJson {
  offset: number;
  id: string;
  topic: string;
  headers: Record<string, unknown>;
  publishedAt: number | null;
  content: unknown;
}

interface DeadLetterPageJson {
  consumerId: string;
  deadLetters: DeadLetterJson[];
  nextFrom: number;
  total: number;
  startOffset: number;
}

interface DeadLetterPurgeJson {
  consumerId: string;
  purged: number;
  startOffset: number;
}

/** The header a dead letter carries its reason in (docs/delivery.md § Dead letters). */
const REASON_HEADER = 'mmmq-dlq-reason';
/** Characters of content shown in the table; `--json` shows all of it. */
const CONTENT_PREVIEW_CHARS = 60;

/** `mmmq dlq list|redrive|purge <consumerId>`: a consumer's dead letters (`/mmmq/dead-letters/{consumerId}`). */
export function registerDlqCommand(program: Command, context: CommandContext): void {
  const dlq = program.command('dlq').description("list, redrive and purge a consumer's dead letters");

  dlq
    .command('list')
    .description('list dead letters, oldest first')
    .argument('<consumerId>', 'the consumer id')
    .option('--from <n>', 'position in the dead-letter list to start at', nonNegativeInteger('--from'), 0)
    .option('--limit <n>', 'at most this many (1–1000)', positiveInteger('--limit'), 100)
    .action(async (consumerId: string, options: { from: number; limit: number }, command: Command) => {
      const path = `/mmmq/dead-letters/${encodeURIComponent(consumerId)}?from=${options.from}&limit=${options.limit}`;
      const page = await context.client(command).get<DeadLetterPageJson>(path);
      if (context.globals(command).json) return printJson(context.io, page);
      printTable(
        context.io,
        ['#', 'id', 'topic', 'reason', 'published', 'content'],
        page.deadLetters.map((letter) => [
          letter.offset,
          letter.id,
          letter.topic,
          letter.headers[REASON_HEADER],
          letter.publishedAt === null ? '' : new Date(letter.publishedAt).toISOString(),
          preview(letter.content),
        ]),
        `(no dead letters for ${consumerId})`,
      );
      if (page.nextFrom < page.total) context.io.stdout.write(`${page.total - page.nextFrom} more: --from ${page.nextFrom}\n`);
    });

  dlq
    .command('redrive')
    .description('hand dead letters back to the consumer: all of them (moved: they leave the list), or those named by --id (copied)')
    .argument('<consumerId>', 'the consumer id')
    .option('--id <id>', 'a dead letter to redrive (repeatable); default: all', collect, [])
    .action(async (consumerId: string, options: { id: string[] }, command: Command) => {
      const body = options.id.length > 0 ? { ids: options.id } : {};
      const result = await context
        .client(command)
        .post<{ redriven: number }>(`/mmmq/dead-letters/${encodeURIComponent(consumerId)}/redrive`, body);
      if (context.globals(command).json) return printJson(context.io, result);
      const how = options.id.length > 0 ? 'copied; they stay listed' : 'moved; they left the list';
      context.io.stdout.write(`Redrove ${result.redriven} dead letter(s) of ${consumerId} (${how})\n`);
    });

  dlq
    .command('purge')
    .description('delete dead letters for good: all of them, or those at positions below --before')
    .argument('<consumerId>', 'the consumer id')
    .option('--before <n>', 'purge only the dead letters at positions below this one', nonNegativeInteger('--before'))
    .option('--yes', 'confirm purging every dead letter (needed without --before)')
    .action(async (consumerId: string, options: { before?: number; yes?: boolean }, command: Command) => {
      // Purging is for good; one typed word stands between a mistyped command and every dead letter.
      if (options.before === undefined && options.yes !== true) {
        throw new UsageError(`Purging every dead letter of ${consumerId} cannot be undone: add --yes, or purge --before <n>`);
      }
      const body = options.before === undefined ? {} : { before: options.before };
      const result = await context
        .client(command)
        .post<DeadLetterPurgeJson>(`/mmmq/dead-letters/${encodeURIComponent(consumerId)}/purge`, body);
      if (context.globals(command).json) return printJson(context.io, result);
      context.io.stdout.write(`Purged ${result.purged} dead letter(s) of ${consumerId}; the oldest kept is at ${result.startOffset}\n`);
    });
}

function preview(content: unknown): string {
  const text = JSON.stringify(content) ?? '';
  return text.length > CONTENT_PREVIEW_CHARS ? `${text.slice(0, CONTENT_PREVIEW_CHARS - 1)}…` : text;
}
