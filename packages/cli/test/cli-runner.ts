import { run } from '../src';
import type { CliIo } from '../src';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Buffers one stream of the CLI. */
export class CapturedOutput {
  text = '';
  constructor(readonly isTTY = false) {}
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

/** Runs `mmmq …argv` in-process against `broker` (its URL, as `MMMQ_BROKER` would give it). */
export async function mmmq(broker: string | undefined, argv: string[], io: Partial<CliIo> = {}): Promise<CliRun> {
  const stdout = new CapturedOutput();
  const stderr = new CapturedOutput();
  const env = broker === undefined ? {} : { MMMQ_BROKER: broker };
  const code = await run(argv, { stdout, stderr, env, ...io });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** Runs it and parses `--json` output, failing with what it printed if it did not succeed. */
export async function mmmqJson(broker: string, argv: string[]): Promise<any> {
  const result = await mmmq(broker, ['--json', ...argv]);
  if (result.code !== 0) throw new Error(`mmmq ${argv.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}
