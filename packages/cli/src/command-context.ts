import type { Command } from 'commander';
import { BrokerClient } from './broker-client';
import type { CliIo } from './cli-io';
import type { GlobalOptions } from './output';

/** What every command gets: the I/O and the broker client its global options describe. */
export class CommandContext {
  constructor(readonly io: CliIo) {}

  /** The program's global options (`--broker`, `--token`, `--json`) as seen from `command`. */
  globals(command: Command): GlobalOptions {
    return command.optsWithGlobals<GlobalOptions>();
  }

  client(command: Command): BrokerClient {
    const { broker, token } = this.globals(command);
    return new BrokerClient(broker, token, this.io.signal);
  }
}
