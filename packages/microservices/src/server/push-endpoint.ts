import type { ConsumerRuntime } from '@mmmq/consumer/internal';
import { HttpShutdownGate } from '@mmmq/core';
import { createServer, IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import { InvalidServerOptionsError } from '../errors/invalid-server-options.error';

/** Where the broker's pushes arrive. */
export interface PushEndpoint {
  /** Resolves once pushes can arrive (and tells the runtime, which then registers the dispatchers). */
  open(): Promise<void>;
  /** Waits up to `timeoutMs` for the pushes in flight during the drain. */
  requestsAnswered(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
  /** The HTTP server pushes arrive on. */
  readonly server: HttpServer;
}

/** A server of the transport's own, for a microservice without HTTP: it serves pushes and answers 404 otherwise. */
export class OwnPushServer implements PushEndpoint {
  readonly server: HttpServer;
  private readonly gate: HttpShutdownGate;

  constructor(
    private readonly runtime: ConsumerRuntime,
    private readonly port: number,
    private readonly host: string,
  ) {
    this.server = createServer((request, response) => {
      if (!runtime.handleRequest(request, response)) notFound(request, response);
    });
    this.gate = HttpShutdownGate.of(this.server);
  }

  open(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.server.once('error', (error: NodeJS.ErrnoException) => {
        const why = error.code === 'EADDRINUSE' ? 'the port is in use' : error.message;
        reject(
          new InvalidServerOptionsError(`MmmqServer cannot listen for pushes on ${this.host}:${this.port} (port): ${why}`, {
            cause: error,
          }),
        );
      });
      this.server.listen(this.port, this.host, () => {
        this.runtime.listening();
        resolve();
      });
    });
  }

  requestsAnswered(timeoutMs: number): Promise<void> {
    return this.gate.close(timeoutMs);
  }

  close(): Promise<void> {
    if (!this.server.listening) return Promise.resolve();
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * The application's own HTTP server (hybrid application): pushes are taken before the application's request
 * listeners see them, as socket.io shares the port of a Nest WebSocket gateway. The application closes its server.
 */
export class SharedPushServer implements PushEndpoint {
  constructor(
    private readonly runtime: ConsumerRuntime,
    readonly server: HttpServer,
  ) {}

  async open(): Promise<void> {
    const others = this.server.listeners('request') as Array<(request: IncomingMessage, response: ServerResponse) => void>;
    this.server.removeAllListeners('request');
    this.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      if (this.runtime.handleRequest(request, response)) return;
      for (const listener of others) listener.call(this.server, request, response);
    });
    // The application listens after its microservices started (`startAllMicroservices()`, then `listen()`).
    if (this.server.listening) this.runtime.listening();
    else this.server.once('listening', () => this.runtime.listening());
  }

  async requestsAnswered(): Promise<void> {}

  async close(): Promise<void> {}
}

function notFound(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  const body = JSON.stringify({ message: `${request.method} ${request.url} is not an MMMQ push path`, statusCode: 404 });
  response.writeHead(404, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);
}
