import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Logger } from '@nestjs/common';
import { Acknowledgement, BrokerAcknowledgement } from '../acknowledgement';
import { RETRY_AFTER_SECONDS } from '../wire-limits';
import { writeJson } from './write-json';

/**
 * On shutdown, a request whose body is still arriving gets this long to finish sending before it is answered 503:
 * enough for a body on its way, not for a client that stalled (Node's request timeout stops counting once the
 * server closes, so such a client would otherwise hold the shutdown open forever).
 */
export const SHUTDOWN_BODY_GRACE_MS = 1_000;

const MMMQ_ROUTES = '/mmmq/';
const SHUTTING_DOWN = 'The server is shutting down and did not take this request; nothing of it was handled. Retry later';

/** One gate per server: a broker and a consumer in one application share the server, and its shutdown. */
const gates = new WeakMap<Server, HttpShutdownGate>();

/**
 * An HTTP server during shutdown: no request is left without an answer, and no socket is dropped.
 * From {@link close} on, every new request is answered 503 with `Retry-After` and `Connection: close` (a NACK on
 * MMMQ's `/mmmq/` routes, which the broker and its producers read as "not taken, retry"), requests in flight are
 * answered with `Connection: close`, and a request whose body has not arrived within {@link SHUTDOWN_BODY_GRACE_MS}
 * is answered 503 too, since nothing of it can have been handled. Requests whose body arrived run to their end (a
 * publish is answered once durable, a delivery once its handler is done); the promise {@link close} returns settles
 * when none is left, or `maxWaitMs` after it began. What is still unanswered then had its handler run, so it cannot be
 * answered 503 ("not taken"): its connection is closed with a warning, and the client, not knowing the outcome, sends
 * it again (a publish with the same id; the broker counts a push as a delivery).
 * Then every connection left, and every new one until the server is closed, gets {@link SHUTDOWN_BODY_GRACE_MS} to
 * send a request (refused like any other) and is closed after it: a client that sent part of a request head has no
 * request yet (nothing of it was handled), and Node stops timing heads out once the server closes, so its connection
 * would hold `server.close()` open forever. Not closed at once: a request on its way would be cut, and its client
 * could not tell whether it was taken.
 */
export class HttpShutdownGate {
  private readonly logger = new Logger('Mmmq');
  private readonly inFlight = new Map<IncomingMessage, ServerResponse>();
  private readonly connections = new Set<Socket>();
  /** Connections that sent a request since the gate was done: it is being refused, and their client reads the 503. */
  private readonly refusing = new WeakSet<Socket>();
  private done = false;
  private closing?: Promise<void>;

  private constructor(private readonly server: Server) {
    server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => this.track(request, response));
    server.on('connection', (socket: Socket) => {
      this.connections.add(socket);
      socket.once('close', () => this.connections.delete(socket));
      if (this.done) this.expire(socket);
    });
  }

  /** The gate of `server`, attached on first use (before the server listens, so that it sees every request). */
  static of(server: Server): HttpShutdownGate {
    let gate = gates.get(server);
    if (gate === undefined) {
      gate = new HttpShutdownGate(server);
      gates.set(server, gate);
    }
    return gate;
  }

  /** The gate of `server` if one is attached, without attaching one. */
  static attached(server: Server): HttpShutdownGate | undefined {
    return gates.get(server);
  }

  /**
   * Counts a request as in flight until it is answered. The gate's own request listener does it for every request; a
   * handler that takes requests before the other listeners (a transport sharing the server) calls it too. Idempotent.
   */
  track(request: IncomingMessage, response: ServerResponse): void {
    if (this.inFlight.has(request)) return;
    this.inFlight.set(request, response);
    response.once('close', () => this.inFlight.delete(request));
  }

  /** Idempotent: the first call's `maxWaitMs` applies; later calls wait for the same end. */
  close(maxWaitMs: number): Promise<void> {
    this.closing ??= this.shutDown(maxWaitMs);
    return this.closing;
  }

  private async shutDown(maxWaitMs: number): Promise<void> {
    // Started first thing, so that a caller's own timer of the same length started before fires before it.
    const deadlinePassed = delay(maxWaitMs);
    const server = this.server;
    // The framework's handler answers nothing new from now on.
    server.removeAllListeners('request');
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      this.refusing.add(request.socket);
      refuseOnceSent(request, response);
    });
    for (const response of this.inFlight.values()) {
      if (!response.headersSent) response.shouldKeepAlive = false;
    }
    const stalled = [...this.inFlight].filter(([request]) => !request.complete);
    if (stalled.length > 0) {
      const grace = Math.min(SHUTDOWN_BODY_GRACE_MS, maxWaitMs);
      await Promise.race([Promise.all(stalled.map(([request]) => bodyArrived(request))), delay(grace)]);
      for (const [request, response] of stalled) if (!request.complete) refuse(request, response);
    }
    await Promise.race([this.drained(), deadlinePassed]);
    // Answered but not yet flushed to the client is answered.
    const unanswered = [...this.inFlight].filter(([, response]) => !response.writableEnded);
    if (unanswered.length > 0) {
      this.logger.warn(
        `${unanswered.length} request(s) still unanswered ${maxWaitMs} ms into shutdown; closing their connections (outcome unknown to the client)`,
      );
      for (const [request, response] of unanswered) {
        if (request.complete) {
          response.destroy();
        } else {
          // Refused at the grace above already, unless that grace was cut short: nothing of it was handled.
          refuse(request, response);
        }
      }
    }
    this.done = true;
    for (const socket of this.connections) this.expire(socket);
  }

  /** Closes `socket` after the grace, unless a request on it is being refused or an answer is still being written. */
  private expire(socket: Socket): void {
    const expired = () => {
      if (this.refusing.has(socket)) return;
      if (socket.writableLength > 0) timer = setTimeout(expired, SHUTDOWN_BODY_GRACE_MS).unref();
      else socket.destroy();
    };
    let timer = setTimeout(expired, SHUTDOWN_BODY_GRACE_MS).unref();
    socket.once('close', () => clearTimeout(timer));
  }

  private async drained(): Promise<void> {
    await Promise.all([...this.inFlight.values()].map(answered));
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
  const body: BrokerAcknowledgement | { statusCode: number; message: string } = request.url?.startsWith(MMMQ_ROUTES)
    ? { acknowledgement: Acknowledgement.NACK, message: SHUTTING_DOWN }
    : { statusCode: 503, message: SHUTTING_DOWN };
  response.shouldKeepAlive = false;
  writeJson(response, 503, body, { 'Retry-After': String(RETRY_AFTER_SECONDS), Connection: 'close' });
}

function answered(response: ServerResponse): Promise<void> {
  if (response.writableEnded || response.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    response.once('finish', resolve).once('close', resolve);
  });
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
