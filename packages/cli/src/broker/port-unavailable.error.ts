import { StreamListenError } from '@mmmq/broker';
import { MmmqError } from '@mmmq/core';

/** What a failed `listen` means, by its error code. */
const LISTEN_FAILURES: Readonly<Record<string, string>> = {
  EADDRINUSE: 'another process listens there already',
  EACCES: 'this user may not listen there (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'no interface of this machine has that address',
};

/** The standalone broker cannot listen on a port; the message names the variable that chooses it. */
export class PortUnavailableError extends MmmqError {}

/**
 * `error` as a {@link PortUnavailableError} naming `MMMQ_STREAM_PORT` when the publish stream could not listen,
 * `MMMQ_PORT` when HTTP could not, with the address and why; undefined for any other error.
 */
export function portUnavailable(error: unknown): PortUnavailableError | undefined {
  const stream = error instanceof StreamListenError;
  const failure = (stream ? error.cause : error) as (NodeJS.ErrnoException & { address?: string; port?: number }) | undefined;
  if (failure?.syscall !== 'listen' || failure.code === undefined) return undefined;
  const why = LISTEN_FAILURES[failure.code] ?? failure.message;
  const where = `${failure.address}:${failure.port}`;
  const message = stream
    ? `the publish stream cannot listen on ${where}: ${why} (${failure.code}); set MMMQ_STREAM_PORT to another port (0: any free one, off: no stream)`
    : `HTTP cannot listen on ${where}: ${why} (${failure.code}); set MMMQ_PORT to another port (0: any free one)`;
  return new PortUnavailableError(message, { cause: error });
}
