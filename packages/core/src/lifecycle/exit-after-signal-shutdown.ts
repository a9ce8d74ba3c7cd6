import { Injectable, OnApplicationShutdown } from '@nestjs/common';

/** The signals that ask a process to stop: Ctrl-C (SIGINT) and `kill` (SIGTERM). */
export const STOP_SIGNALS: readonly string[] = ['SIGINT', 'SIGTERM'];

/** The signals some instance already listens for: one listener a process is enough. */
const listening = new Set<string>();

/**
 * Makes a Nest application stopped by Ctrl-C or `kill` exit with code 0 once it has shut down cleanly.
 *
 * `app.enableShutdownHooks()` shuts the application down on the signal and then, unless given
 * `{ useProcessExit: true }`, sends the same signal to the process again with its own listener removed, so the
 * default action kills the process: exit code 130 for Ctrl-C, 143 for SIGTERM, although nothing went wrong. On a
 * stop signal this hook listens for that re-sent signal and exits with `process.exitCode` (0 unless the
 * application set it) instead. A second Ctrl-C while the shutdown is still under way reaches Nest's listener too,
 * which ignores it, and so does this one. The MMMQ modules provide it.
 */
@Injectable()
export class ExitAfterSignalShutdown implements OnApplicationShutdown {
  onApplicationShutdown(signal?: string): void {
    if (signal === undefined || !STOP_SIGNALS.includes(signal) || listening.has(signal)) return;
    listening.add(signal);
    process.on(signal, () => {
      if (process.listenerCount(signal) === 1) process.exit();
    });
  }
}
