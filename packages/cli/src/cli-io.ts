import { setMaxListeners } from 'node:events';

/** Where a command writes: a stream of the process, or a buffer in tests. */
export interface CliOutput {
  write(text: string): unknown;
  /** A terminal: live progress bars instead of plain lines. */
  isTTY?: boolean;
}

/** What `run` uses of the outside world, so the CLI runs in-process in tests as it does in a terminal. */
export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  env: NodeJS.ProcessEnv;
  /** Aborted on Ctrl-C: `tail --follow` and `bench` end cleanly, requests in flight are cancelled. */
  signal?: AbortSignal;
}

/** The process's own streams and environment; Ctrl-C aborts `signal`, a second one exits at once. */
export function processIo(): CliIo {
  const interrupt = new AbortController();
  // Every request in flight listens for Ctrl-C: a bench has dozens at once, which is no leak.
  setMaxListeners(0, interrupt.signal);
  process.on('SIGINT', () => {
    if (interrupt.signal.aborted) process.exit(130);
    interrupt.abort();
  });
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, signal: interrupt.signal };
}
