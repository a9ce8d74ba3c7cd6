import type { ConsumerRuntime } from '@mmmq/consumer/internal';
import { Acknowledgement, HttpShutdownGate, PushClaims, RequestTap, RETRY_AFTER_SECONDS, writeJson } from '@mmmq/core';
import { createServer, IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import { InvalidServerOptionsError } from '../errors/invalid-server-options.error';

/** Where the broker's pushes arrive. */
export interface PushEndpoint {
  /** Resolves once pushes can arrive (and tells the runtime, which then registers the dispatchers). */
  open(): Promise<void>;
  /** Waits up to `timeoutMs` for the pushes in flight during the drain. */
  requestsAnswered(timeoutMs: number): Promise<void>;
  /** Idempotent; a server still opening is closed once it listens. */
  close(): Promise<void>;
  /** The HTTP server pushes arrive on. */
  readonly server: HttpServer;
}

/** A server of the transport's own, for a microservice without HTTP: it serves pushes and answers 404 otherwise. */
export class OwnPushServer implements PushEndpoint {
  readonly server: HttpServer;
  private readonly gate: HttpShutdownGate;
  private closed = false;

  constructor(
    private readonly runtime: ConsumerRuntime,
    private readonly port: number,
    private readonly host: string,
  ) {
    this.server = createServer((request, response) => {
      if (runtime.isPush(request)) runtime.receive(request, response);
      else notFound(request, response);
    });
    this.gate = HttpShutdownGate.of(this.server);
  }

  open(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const failed = (error: NodeJS.ErrnoException) => {
        const option = error.code === 'EADDRINUSE' ? `port ${this.port} is in use` : `host ${this.host}: ${error.message}`;
        reject(
          new InvalidServerOptionsError(`MmmqServer cannot listen for pushes on ${this.host}:${this.port} (${option})`, { cause: error }),
        );
      };
      this.server.once('error', failed);
      this.server.listen(this.port, this.host, () => {
        this.server.off('error', failed);
        if (this.closed) return resolve(this.close());
        this.runtime.listening();
        resolve();
      });
    });
  }

  requestsAnswered(timeoutMs: number): Promise<void> {
    return this.gate.close(timeoutMs);
  }

  close(): Promise<void> {
    this.closed = true;
    if (!this.server.listening) return Promise.resolve();
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * The application's own HTTP server (hybrid application): pushes for this transport's listeners are taken before the
 * application's request listeners see them (RequestTap); every other
 * request (pushes for an `MmmqConsumerModule` in the same application included) goes on to the application. The
 * application closes its server, before Nest closes the transports: from then on, pushes are answered 503 with
 * `Connection: close` (not taken, not counted), so that the broker's kept-alive connections cannot hold the close open.
 */
export class SharedPushServer implements PushEndpoint {
  constructor(
    private readonly runtime: ConsumerRuntime,
    readonly server: HttpServer,
    /** The consumer ids of this transport's listeners: another module taking one of them fails the start. */
    private readonly claims: PushClaims,
  ) {}

  async open(): Promise<void> {
    RequestTap.of(this.server).add((request, response) => {
      if (!this.runtime.isPush(request) || !this.runtime.knows(request)) return false;
      if (!this.server.listening) refuseClosing(request, response);
      // Answered after the application began to close its server: the broker must not reuse the connection.
      else this.runtime.receive(request, response, () => !this.server.listening);
      return true;
    }, this.claims);
    // The application listens after its microservices started (`startAllMicroservices()`, then `listen()`).
    if (this.server.listening) this.runtime.listening();
    else this.server.once('listening', () => this.runtime.listening());
  }

  async requestsAnswered(): Promise<void> {}

  async close(): Promise<void> {}
}

function refuseClosing(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  response.shouldKeepAlive = false;
  const body = { acknowledgement: Acknowledgement.NACK, message: 'The application is shutting down; the broker will send it again' };
  writeJson(response, 503, body, { 'Retry-After': String(RETRY_AFTER_SECONDS), Connection: 'close' });
}

function notFound(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  writeJson(response, 404, { message: `${request.method} ${request.url} is not an MMMQ push path`, statusCode: 404 });
}
