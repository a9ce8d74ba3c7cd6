import type { Command } from 'commander';
import { startStandaloneBroker } from '../broker/start-standalone-broker';
import type { CommandContext } from '../command-context';

interface BrokerOptions {
  port?: string;
  host?: string;
  rootDir?: string;
}

/**
 * `mmmq broker`: the standalone server (the same as `apps/broker`), configured by the `MMMQ_*` variables; the
 * options override the three most often set. Runs until SIGTERM or Ctrl-C, which stop it cleanly.
 */
export function registerBrokerCommand(program: Command, context: CommandContext): void {
  program
    .command('broker')
    .description('run the broker server (configured by the MMMQ_* environment variables, docs/http-api.md)')
    .option('--port <port>', 'HTTP port (MMMQ_PORT, default 8080; 0 picks a free one)')
    .option('--host <host>', 'interface to bind (MMMQ_HOST, default 127.0.0.1)')
    .option('--root-dir <dir>', 'data directory (MMMQ_ROOT_DIR, default ./mmmq)')
    .action(async (options: BrokerOptions) => {
      const overrides = { MMMQ_PORT: options.port, MMMQ_HOST: options.host, MMMQ_ROOT_DIR: options.rootDir };
      const env = { ...context.io.env };
      for (const [name, value] of Object.entries(overrides)) if (value !== undefined) env[name] = value;
      await startStandaloneBroker(env);
    });
}
