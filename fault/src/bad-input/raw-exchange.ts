import { connect } from 'node:net';

/** Bytes to send, and after what pause (to model a client that stalls mid-request). */
export interface Chunk {
  bytes: Buffer;
  delayMs?: number;
}

export interface RawExchange {
  /** The HTTP status of the first answer, if one came. */
  status?: number;
  /** What came back, for stream cases. */
  received: Buffer;
  /** The broker closed the connection (before the deadline). */
  closed: boolean;
  /** Neither an answer nor a close before the deadline. */
  timedOut: boolean;
  elapsedMs: number;
}

/**
 * Opens a TCP connection, sends the chunks (each after its pause), optionally half-closes, and waits until the
 * broker closes the connection, `done(received)` says the answer is complete, or the deadline passes. Raw
 * sockets, because the hostile requests are exactly the ones an HTTP client library refuses to send.
 */
export function exchange(
  port: number,
  chunks: readonly Chunk[],
  options: { deadlineMs: number; endAfterSend?: boolean; done?: (received: Buffer) => boolean },
): Promise<RawExchange> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const parts: Buffer[] = [];
    let settled = false;
    const finish = (closed: boolean, timedOut: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const received = Buffer.concat(parts);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(received.subarray(0, 20).toString('latin1'))?.[1];
      resolve({ status: status ? Number(status) : undefined, received, closed, timedOut, elapsedMs: Date.now() - started });
    };
    const timer = setTimeout(() => finish(false, true), options.deadlineMs);
    socket.on('data', (data: Buffer) => {
      parts.push(data);
      if (options.done?.(Buffer.concat(parts))) finish(false, false);
    });
    socket.on('error', () => finish(true, false));
    socket.on('close', () => finish(true, false));
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (chunk.delayMs) await new Promise((resolve) => setTimeout(resolve, chunk.delayMs));
        if (settled || socket.destroyed) return;
        socket.write(chunk.bytes);
      }
      if (options.endAfterSend) socket.end();
    });
  });
}
