import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { PushRouteConflictError } from '../errors/push-route-conflict-error';
import { HttpShutdownGate } from './http-shutdown-gate';

/** Looks at a request before the application's framework does: true when it took the request (and answers it). */
export type RequestTaker = (request: IncomingMessage, response: ServerResponse) => boolean;

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/** The consumer ids whose pushes a taker takes, each with who serves it (`MmmqConsumerModule: Billing.onOrder`). */
export type PushClaims = ReadonlyMap<string, string>;

/** One tap per server: a broker and a consumer in one application share it. */
const taps = new WeakMap<Server, RequestTap>();

/**
 * The requests of an application's HTTP server, seen before its framework (express, fastify) sees them — as
 * socket.io shares the port of a Nest application. MMMQ's routes read their own bodies, with their own limits,
 * whatever body parsers, global prefix or global guards the application has: a consumer takes the broker's pushes
 * for its listeners here, and the broker keeps its request bodies from the application's parsers. Attached once
 * per server, before it listens: it wraps the request listeners present then (the framework's); a request a taker
 * took is tracked by the server's shutdown gate, which must see every request.
 */
export class RequestTap {
  private readonly takers: RequestTaker[] = [];
  private readonly fallbacks: RequestTaker[] = [];
  /** Consumer id → who takes its pushes, over every taker. */
  private readonly claimed = new Map<string, string>();

  private constructor(server: Server) {
    const framework = server.listeners('request') as RequestListener[];
    server.removeAllListeners('request');
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      // Asked on every request (publishes among them): no array is built for it.
      if (this.offer(this.takers, request, response) || this.offer(this.fallbacks, request, response)) {
        HttpShutdownGate.attached(server)?.track(request, response);
        return;
      }
      for (const listener of framework) listener.call(server, request, response);
    });
  }

  private offer(takers: readonly RequestTaker[], request: IncomingMessage, response: ServerResponse): boolean {
    for (const take of takers) if (take(request, response)) return true;
    return false;
  }

  /** The tap of `server`, attached on first use. */
  static of(server: Server): RequestTap {
    let tap = taps.get(server);
    if (tap === undefined) {
      tap = new RequestTap(server);
      taps.set(server, tap);
    }
    return tap;
  }

  /**
   * Takers are asked in the order they were added; the first that takes a request ends the round. A taker of pushes
   * names the consumer ids it takes: one already taken by another fails, since only the first would ever receive.
   * @throws PushRouteConflictError naming both and the fix (nothing is added then)
   */
  add(taker: RequestTaker, claims: PushClaims = new Map()): void {
    for (const [consumerId, by] of claims) {
      const first = this.claimed.get(consumerId);
      if (first === undefined) continue;
      throw new PushRouteConflictError(
        `Two modules of this application take the pushes of consumer id "${consumerId}": ${first} and ${by}; only the ` +
          'first would ever receive them. Give one of them another consumerId, keep the handler in one module, or import ' +
          'MmmqConsumerModule.forRoot() once (a second import discovers the same listeners)',
      );
    }
    for (const [consumerId, by] of claims) this.claimed.set(consumerId, by);
    this.takers.push(taker);
  }

  /** Asked after every taker, whenever it was added: for what no more specific taker wants. */
  addFallback(taker: RequestTaker): void {
    this.fallbacks.push(taker);
  }
}
