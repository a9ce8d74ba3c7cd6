import { log, removeTempRoot, stopAll } from './services';

async function cleanUpAndExit(code: number): Promise<never> {
  await stopAll();
  removeTempRoot();
  process.exit(code);
}

/**
 * Runs a bench command to its end: the servers it started are stopped (by pid) and its temp dir removed whether it
 * finishes, fails or is interrupted. `main` resolves to the exit code.
 */
export function runToExit(main: () => Promise<number | void>): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping the servers the bench started`);
      void cleanUpAndExit(130);
    });
  }
  process.on('uncaughtException', (error) => {
    log(`uncaught: ${error.stack ?? error.message}`);
    void cleanUpAndExit(1);
  });
  process.on('unhandledRejection', (error) => {
    log(`unhandled rejection: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    void cleanUpAndExit(1);
  });
  main().then(
    // Clients (Nest apps, sockets) may keep the loop alive; the work is done.
    (code) => cleanUpAndExit(code ?? 0),
    (error: unknown) => {
      log(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      void cleanUpAndExit(1);
    },
  );
}
