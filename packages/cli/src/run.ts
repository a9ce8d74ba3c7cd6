import { MmmqError } from '@mmmq/core';
import { Command, CommanderError } from 'commander';
import { DEFAULT_BROKER_URL, TOKEN_VARIABLE } from './broker-client';
import { BROKER_URL_VARIABLE, brokerUrlFromEnv } from './broker-url-variable';
import { CliError } from './cli.errors';
import { CliIo, processIo } from './cli-io';
import { CommandContext } from './command-context';
import { registerAsyncApiCommand } from './commands/asyncapi.command';
import { registerBenchCommand } from './commands/bench.command';
import { registerBrokerCommand } from './commands/broker.command';
import { registerDispatchersCommand } from './commands/dispatchers.command';
import { registerDlqCommand } from './commands/dlq.command';
import { registerPublishCommand } from './commands/publish.command';
import { registerSeekCommand } from './commands/seek.command';
import { registerTailCommand } from './commands/tail.command';
import { registerTopicsCommand } from './commands/topics.command';
import { registerVerifyCommand } from './commands/verify.command';
import { ExitCode } from './exit-codes';

/** Commander's codes for help and version output, which are no failure. */
const INFORMATIONAL = new Set(['commander.helpDisplayed', 'commander.version', 'commander.help']);

/**
 * Runs `mmmq` with `argv` (the arguments after the program name) and resolves with its exit code; never exits the
 * process itself, so tests run it in-process. A failure is one line on stderr: `mmmq: …`.
 */
export async function run(argv: readonly string[], io: CliIo = processIo()): Promise<ExitCode> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return ExitCode.OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (INFORMATIONAL.has(error.code) && error.exitCode === 0) return ExitCode.OK;
      return INFORMATIONAL.has(error.code) && argv.length > 0 ? ExitCode.OK : ExitCode.USAGE;
    }
    if (io.signal?.aborted) return ExitCode.INTERRUPTED;
    if (error instanceof CliError) {
      io.stderr.write(`mmmq: ${error.message}\n`);
      return error.exitCode;
    }
    // One of MMMQ's own errors explains itself; anything else is a bug, and its stack helps.
    const text = error instanceof MmmqError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
    io.stderr.write(`mmmq: ${text}\n`);
    return ExitCode.FAILURE;
  }
}

function buildProgram(io: CliIo): Command {
  const program = new Command('mmmq')
    .description('Run, inspect and exercise an MMMQ broker')
    .version(version(), '-V, --version')
    .option('--broker <url>', `broker URL (env ${BROKER_URL_VARIABLE})`, brokerUrlFromEnv(io.env, io.stderr) ?? DEFAULT_BROKER_URL)
    .option('--token <token>', `bearer token (env ${TOKEN_VARIABLE})`, io.env[TOKEN_VARIABLE])
    .option('--json', 'print JSON for scripts instead of tables')
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    .showHelpAfterError('(mmmq --help lists the commands)');
  const context = new CommandContext(io);
  registerBrokerCommand(program, context);
  registerPublishCommand(program, context);
  registerTailCommand(program, context);
  registerTopicsCommand(program, context);
  registerDispatchersCommand(program, context);
  registerDlqCommand(program, context);
  registerSeekCommand(program, context);
  registerBenchCommand(program, context);
  registerVerifyCommand(program, context);
  registerAsyncApiCommand(program, context);
  return program;
}

function version(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('../package.json') as { version: string }).version;
}
