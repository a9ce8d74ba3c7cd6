import { DEFAULT_ASYNCAPI_TITLE, DEFAULT_ASYNCAPI_VERSION } from '@mmmq/core';
import type { Command } from 'commander';
import { writeFile } from 'node:fs/promises';
import { describeApplication } from '../asyncapi/describe-application';
import type { CommandContext } from '../command-context';

/** The class `--export` names when it is not given: what `nest new` calls the root module. */
export const DEFAULT_ASYNCAPI_EXPORT = 'AppModule';

interface AsyncApiOptions {
  module: string;
  export: string;
  out?: string;
  title: string;
  apiVersion: string;
  description?: string;
  patterns?: boolean;
}

/**
 * `mmmq asyncapi --module dist/app.module.js [--export AppModule] [--out asyncapi.json]`: writes the application's
 * AsyncAPI 3.0 document (docs/asyncapi.md) for CI, without starting its listeners or contacting a broker.
 */
export function registerAsyncApiCommand(program: Command, context: CommandContext): void {
  program
    .command('asyncapi')
    .description("write an application's AsyncAPI 3.0 document: its listeners, pattern handlers and declared producer events")
    .requiredOption('--module <file>', 'the compiled file of the application module, e.g. dist/app.module.js')
    .option('--export <name>', 'the module class that file exports', DEFAULT_ASYNCAPI_EXPORT)
    .option('--out <file>', 'write the document there instead of to stdout')
    .option('--title <title>', "the document's info.title", DEFAULT_ASYNCAPI_TITLE)
    .option('--api-version <version>', "the document's info.version", DEFAULT_ASYNCAPI_VERSION)
    .option('--description <text>', "the document's info.description")
    .option('--patterns', "describe the controllers' @EventPattern/@MessagePattern handlers as an MmmqServer receives them")
    .action(async (options: AsyncApiOptions) => {
      const document = await describeApplication({
        modulePath: options.module,
        exportName: options.export,
        patterns: options.patterns === true,
        info: {
          title: options.title,
          version: options.apiVersion,
          ...(options.description === undefined ? {} : { description: options.description }),
        },
      });
      const text = `${JSON.stringify(document, null, 2)}\n`;
      if (options.out === undefined) context.io.stdout.write(text);
      else await writeFile(options.out, text);
    });
}
