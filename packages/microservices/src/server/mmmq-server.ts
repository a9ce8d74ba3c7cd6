import { ConsumerRuntime, ListenerDefinition } from '@mmmq/consumer/internal';
import type { MessageContext } from '@mmmq/consumer';
import { Logger } from '@nestjs/common';
import { CustomTransportStrategy, Deserializer, MessageHandler, Server } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import { MmmqContext } from '../context/mmmq-context';
import { InvalidServerOptionsError } from '../errors/invalid-server-options.error';
import { MMMQ_TRANSPORT } from '../mmmq-transport';
import { eventListeners } from './event-listeners';
import { handlerFailure } from './handler-failure';
import type { MmmqServerOptions } from './mmmq-server.options';
import { OwnPushServer, PushEndpoint, SharedPushServer } from './push-endpoint';
import { ServerSettings, splitServerOptions } from './server-options.resolver';

/** What `status` reports. */
export type MmmqServerStatus = 'connecting' | 'connected' | 'disconnected';

/**
 * MMMQ as a Nest microservices transport: each `@EventPattern(pattern)` becomes an MMMQ listener with its own
 * dispatcher on the broker (push or pull), run through Nest's pipes, guards, interceptors and exception filters.
 * A handler that completes ACKs its message; one that fails NACKs it (the broker retries, then dead-letters it); a
 * `MmmqNonRetriableException` or a validation failure dead-letters it at once.
 *
 * `NestFactory.createMicroservice(AppModule, { strategy: new MmmqServer({...}) })`, or in a hybrid application
 * `app.connectMicroservice({ strategy: new MmmqServer({ ..., httpServer: app.getHttpServer() }) })`.
 */
export class MmmqServer extends Server<Record<string, Function>, MmmqServerStatus> implements CustomTransportStrategy {
  override readonly transportId = MMMQ_TRANSPORT;
  protected override readonly logger = new Logger('MmmqServer');
  private readonly settings: ServerSettings;
  private readonly runtime: ConsumerRuntime;
  private endpoint: PushEndpoint | undefined;
  private closing: Promise<void> | undefined;

  /** @throws InvalidServerOptionsError, InvalidConsumerOptionsError naming the first invalid option */
  constructor(options: MmmqServerOptions) {
    super();
    this.settings = splitServerOptions(options);
    this.runtime = new ConsumerRuntime(this.settings.consumer, new Logger('MmmqServer'));
  }

  /** Starts taking messages for every `@EventPattern`; registration goes on in the background unless `registration.failFast`. */
  listen(callback: (error?: unknown) => void): void {
    this._status$.next('connecting');
    this.start().then(
      () => {
        this._status$.next('connected');
        callback();
      },
      (error: unknown) => callback(error),
    );
  }

  /**
   * Drains: stops taking messages, lets the running handlers finish (up to `shutdownTimeoutMs`), sends the last
   * acknowledgements, leaves the dispatchers and closes its push server. Idempotent; Nest calls it on shutdown.
   */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** The HTTP server pushes arrive on (undefined with pull delivery, or before `listen`). */
  unwrap<T>(): T {
    return this.endpoint?.server as T;
  }

  /** This transport emits no events of its own; `status` tells its state. */
  on(): never {
    throw new Error('MmmqServer has no events to listen to; subscribe to `status` instead');
  }

  private async start(): Promise<void> {
    const listeners = eventListeners(this.messageHandlers, this.runtime.options, (pattern, handler) => this.runner(pattern, handler));
    for (const listener of listeners) {
      this.logger.log(
        `${listener.where} → dispatcher ${listener.consumerId} (concurrency ${listener.concurrency}, ackMode ${listener.ackMode})`,
      );
    }
    this.endpoint = this.pushEndpoint();
    await this.endpoint?.open();
    await this.runtime.start(listeners);
  }

  private pushEndpoint(): PushEndpoint | undefined {
    const push = this.settings.push;
    if (push.kind === 'none') return undefined;
    if (push.kind === 'shared') return new SharedPushServer(this.runtime, push.server);
    const port = push.port ?? this.runtime.options.registration?.advertisedHost?.port;
    if (port === undefined) {
      throw new InvalidServerOptionsError('port is needed for push delivery without advertisedUrl (the broker must reach this server)');
    }
    return new OwnPushServer(this.runtime, port, push.host);
  }

  /** The pattern's handler(s) on one message, through Nest's enhancers and the processing hooks (tracing). */
  private runner(pattern: string, handler: MessageHandler): ListenerDefinition['handle'] {
    return async (content: unknown, message: MessageContext) => {
      const context = new MmmqContext([message, pattern]);
      const data = await this.deserialize(content, message.topic);
      await new Promise<void>((resolve, reject) => {
        this.onProcessingStartHook(this.transportId, context, async () => {
          try {
            await lastValueFrom(this.transformToObservable(await handler(data, context)), { defaultValue: undefined });
            resolve();
          } catch (failure) {
            reject(handlerFailure(failure));
          } finally {
            this.onProcessingEndHook?.(this.transportId, context);
          }
        });
      });
    };
  }

  /** By default the content itself; a deserializer's packet gives its `data`. */
  private async deserialize(content: unknown, topic: string): Promise<unknown> {
    const deserializer: Deserializer | undefined = this.settings.deserializer;
    if (deserializer === undefined) return content;
    const packet = await deserializer.deserialize(content, { channel: topic });
    return (packet as { data?: unknown } | undefined)?.data;
  }

  private async shutdown(): Promise<void> {
    const endpoint = this.endpoint;
    try {
      await this.runtime.close((timeoutMs) => endpoint?.requestsAnswered(timeoutMs) ?? Promise.resolve());
    } finally {
      await endpoint?.close();
      this._status$.next('disconnected');
    }
  }
}
