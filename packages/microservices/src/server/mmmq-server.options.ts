import type { ListenerConfig, MmmqConsumerOptions } from '@mmmq/consumer';
import type { Deserializer } from '@nestjs/microservices';
import type { Server as HttpServer } from 'node:http';

/**
 * Options of `new MmmqServer({...})`: those of `MmmqConsumerModule.forRoot()` (docs/consumer.md), with these
 * differences:
 * - `listeners` is keyed by **event pattern** (there is no listener name), e.g. `{ 'order.*': { concurrency: 4 } }`;
 *   it overrides the handler's `@EventPattern(pattern, { … })` extras.
 * - With push (the default), pushes arrive on `httpServer` when it is given (the application's own server:
 *   `app.getHttpServer()`), otherwise on a server of the transport's own, listening on `port` (default: the port of
 *   `advertisedUrl`) at `host`.
 * - With `transport` (e.g. `new RabbitMqTransport({ url })` of `@mmmq/rabbitmq`), each pattern's listener subscribes
 *   on that transport instead: nothing is pushed, so `httpServer`, `port` and `host` are refused beside it, as are the
 *   MMMQ broker's own options (`broker`, `advertisedUrl`, `delivery`…).
 */
export interface MmmqServerOptions extends Omit<MmmqConsumerOptions, 'listeners'> {
  /** Per-handler settings by event pattern; they override the `@EventPattern` extras. Default none. */
  listeners?: Record<string, ListenerConfig>;
  /**
   * Receive pushes on this HTTP server (a hybrid application's: `app.getHttpServer()`) instead of opening one:
   * requests to `/mmmq/messages` are taken before the application sees them, as a WebSocket gateway shares the port.
   */
  httpServer?: HttpServer;
  /** Port of the transport's own push server. Default: the port of `advertisedUrl`. Not with `httpServer`. */
  port?: number;
  /** Address the transport's own push server binds to. Default {@link DEFAULT_PUSH_HOST}. Not with `httpServer`. */
  host?: string;
  /**
   * Turns a message's content into the packet handed to the handler (Nest's deserializer hook), called with
   * `(content, { channel: topic })`; the packet's `data` is the handler's payload. Default: the content itself,
   * byte-exact as the producer sent it.
   */
  deserializer?: Deserializer;
}

/** All interfaces: the broker reaches the application at `advertisedUrl`, which need not be loopback. */
export const DEFAULT_PUSH_HOST = '0.0.0.0';
