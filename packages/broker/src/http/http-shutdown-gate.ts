import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Acknowledgement, BrokerAcknowledgement } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { RETRY_AFTER_SECONDS } from './nack-response';

/**
 * On shutdown, a request whose body is still arriving gets this long to finish sending before it is answered 503:
 * enough for a body on its way, not for a client that stalled (Node's request timeout stops counting once the
 * server closes, so such a client would otherwise hold the shutdown open forever).
 */
export const SHUTDOWN_BODY_GRACE_MS = 1_000;

const BROKER_ROUTES = '/mmmq/';
const SHUTTING_DOWN = 'The broker is shutting down; nothing was stored. Retry later or against another broker';

/**
 * The application's HTTP server during shutdown: no request is left without an answer, and no socket is dropped.
 * From {@link close} on, every new request is answered 503 with `Retry-After` and `Connection: close` (a NACK on
 * the broker's routes), requests in flight are answered with `Connection: close`, and a request whose body has not
 * arrived within {@link SHUTDOWN_BODY_GRACE_MS} is answered 503 too, since nothing of it can have been stored.
 * Requests whose body arrived run to their end (a publish is answered once durable, as always); the promise
 * {@link close} returns settles when none is left, or after `maxWaitMs` with a warning.
 */
export class HttpShutdownGate {
  private readonly logger = new Logger('MmmqBroker');
  private readonly inFlight = new Map<IncomingMessage, ServerResponse>();
  private server?: Server;
  private closing?: Promise<void>;

  attach(server: Server): void {
    this.server = server;
    server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
      this.inFlight.set(request, response);
      response.once('close', () => this.inFlight.delete(request));
    });
  }

  /** Idempotent. */
  close(maxWaitMs: number): Promise<void> {
    this.closing ??= this.shutDown(maxWaitMs);
    return this.closing;
  }

  private async shutDown(maxWaitMs: number): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    // The framework's handler answers nothing new from now on.
    server.removeAllListeners('request');
    server.on('request', (request: IncomingMessage, response: ServerResponse) => refuseOnceSent(request, response));
    for (const response of this.inFlight.values()) {
      if (!response.headersSent) response.shouldKeepAlive = false;
    }
    const stalled = [...this.inFlight].filter(([request]) => !request.complete);
    if (stalled.length > 0) {
      await Promise.race([Promise.all(stalled.map(([request]) => bodyArrived(request))), delay(SHUTDOWN_BODY_GRACE_MS)]);
      for (const [request, response] of stalled) if (!request.complete) refuse(request, response);
    }
    await Promise.race([this.drained(), delay(maxWaitMs)]);
    if (this.inFlight.size > 0) {
      this.logger.warn(`${this.inFlight.size} request(s) still unanswered ${maxWaitMs} ms into shutdown; answering them 503`);
      for (const [request, response] of this.inFlight) refuse(request, response);
    }
  }

  private async drained(): Promise<void> {
    await Promise.all([...this.inFlight.values()].map((response) => new Promise((resolve) => response.once('close', resolve))));
  }
}

/** Like {@link refuse}, once the body is in (or the grace is over), so that the client reads the answer. */
function refuseOnceSent(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  void Promise.race([bodyArrived(request), delay(SHUTDOWN_BODY_GRACE_MS)]).then(() => refuse(request, response));
}

function refuse(request: IncomingMessage, response: ServerResponse): void {
  if (response.headersSent) {
    // Half an answer cannot be completed with another; the client sees the connection end and retries.
    if (!response.writableEnded) response.destroy();
    return;
  }
  const body: BrokerAcknowledgement | { statusCode: number; message: string } = request.url?.startsWith(BROKER_ROUTES)
    ? { acknowledgement: Acknowledgement.NACK, message: SHUTTING_DOWN }
    : { statusCode: 503, message: SHUTTING_DOWN };
  const json = JSON.stringify(body);
  response.shouldKeepAlive = false;
  response.writeHead(503, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(json),
    'Retry-After': String(RETRY_AFTER_SECONDS),
    Connection: 'close',
  });
  response.end(json);
}

function bodyArrived(request: IncomingMessage): Promise<void> {
  if (request.complete || request.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    request.once('end', resolve).once('close', resolve);
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
