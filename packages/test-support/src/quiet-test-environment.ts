import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import type { Circus } from '@jest/types';
import NodeEnvironment from 'jest-environment-node';
import { QUIET_LOG_SINK, type QuietLogSink } from './quiet-log-sink';

/**
 * Jest's node environment, plus a per-test log buffer: what the test's Nest applications log (routed here by
 * `quiet-logger.setup.ts`) is printed only when that test (or a hook) fails, so a green run prints no ERROR/WARN
 * lines from tests that provoke failures on purpose, and a red one shows the logs that explain it.
 */
export default class QuietTestEnvironment extends NodeEnvironment {
  private lines: string[] = [];

  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
    const sink: QuietLogSink = (line) => this.lines.push(line);
    this.global[QUIET_LOG_SINK] = sink;
  }

  async handleTestEvent(event: Circus.Event): Promise<void> {
    if (event.name === 'test_done') {
      if (event.test.errors.length > 0) this.print(`test "${fullName(event.test)}" failed`);
      this.lines = [];
    } else if (event.name === 'hook_failure') {
      this.print(`${event.hook.type} hook failed`);
      this.lines = [];
    }
  }

  private print(why: string): void {
    if (this.lines.length === 0) return;
    process.stderr.write(`\n--- logs of the ${why} ---\n${this.lines.join('\n')}\n--- end of logs ---\n`);
  }
}

function fullName(test: Circus.TestEntry): string {
  const names: string[] = [];
  for (let block: Circus.TestEntry | Circus.DescribeBlock | undefined = test; block; block = block.parent) {
    if (block.name !== 'ROOT_DESCRIBE_BLOCK') names.unshift(block.name);
  }
  return names.join(' › ');
}
