import { ConsumerRuntime, ListenerDefinition } from '@mmmq/consumer/internal';
import type { MessageContext } from '@mmmq/consumer';
import { IN_PROCESS_BROKER_CLIENT, type InProcessBrokerClient, type InProcessBrokerTransport } from '@mmmq/core';
import { ASYNCAPI_CONTRIBUTOR, type AsyncApiContributor, type AsyncApiOperation, type AsyncApiScope } from '@mmmq/core/internal';
import { Logger } from '@nestjs/common';
import { CustomTransportStrategy, Deserializer, MessageHandler, Server } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import { MmmqContext } from '../context/mmmq-context';
import { ServerEventsNotSupportedError } from '../errors/server-events-not-supported.error';
import { MMMQ_TRANSPORT } from '../mmmq-transport';
import { eventListeners } from './event-listeners';
import { handlerFailure } from './handler-failure';
import { InProcessLink } from './in-process-link';
import type { MmmqServerOptions } from './mmmq-server.options';
import { patternOperations } from './pattern-operations';
import { OwnPushServer, PushEndpoint, SharedPushServer } from './push-endpoint';
import { inProcessBrokerOf, PushPlace, resolvePushPlaceOf, ServerOptionsSplit, splitServerOptions } from './server-options.resolver';

/** What `status` reports. */
export type MmmqServerStatus = 'connecting' | 'connected' | 'disconnected';

/**
 * MMMQ as a Nest microservices transport: each `@EventPattern(pattern)` becomes an MMMQ listener with its own
 * dispatcher on the MMMQ broker: in process when the application imports `MmmqBrokerModule` and `broker` is not set,
 * else pushed or pulled over HTTP; or, with the `transport` option (`new RabbitMqTransport({ url })`,
 * `InMemoryTransport`), its own subscription there, run through Nest's pipes, guards, interceptors and exception
 * filters. A handler that completes ACKs its message; one that fails NACKs it (the transport retries, then
 * dead-letters it); a `MmmqNonRetriableException` or a validation failure dead-letters it at once.
 *
 * `NestFactory.createMicroservice(AppModule, { strategy: new MmmqServer({...}) })`, or in a hybrid application
 * `app.connectMicroservice({ strategy: new MmmqServer({ ..., httpServer: app.getHttpServer() }) })`.
 */
export class MmmqServer
  extends Server<Record<string, Function>, MmmqServerStatus>
  implements CustomTransportStrategy, InProcessBrokerClient, AsyncApiContributor
{
  override readonly transportId = MMMQ_TRANSPORT;
  /** Told by the application's `MmmqBrokerModule` that it exists, has started and stops (see InProcessLink). */
  readonly [IN_PROCESS_BROKER_CLIENT] = new InProcessLink(() => (this.push.kind === 'in-process' ? this.close() : Promise.resolve()));
  protected override readonly logger = new Logger('MmmqServer');
  private readonly runtime: ConsumerRuntime;
  private readonly push: PushPlace;
  private readonly pushOptions: ServerOptionsSplit['push'];
  private readonly customDeserializer: Deserializer | undefined;
  private endpoint: PushEndpoint | undefined;
  private closing: Promise<void> | undefined;

  /** @throws InvalidServerOptionsError, InvalidConsumerOptionsError naming the first invalid option */
  constructor(options: MmmqServerOptions) {
    super();
    const split = splitServerOptions(options);
    this.runtime = new ConsumerRuntime(split.consumer, new Logger('MmmqServer'));
    this.push = resolvePushPlaceOf(this.runtime.options, split.push);
    this.pushOptions = split.push;
    this.customDeserializer = split.deserializer;
  }

  /**
   * Starts taking messages for every `@EventPattern`; registration goes on in the background unless
   * `registration.failFast`. In process, once the application's broker has started: at once after `app.init()`,
   * else at the application's bootstrap (`app.listen()`), which fails if a subscription does.
   */
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

  /** Its handlers, for the application's AsyncAPI document (docs/asyncapi.md), found among the RPC targets. */
  [ASYNCAPI_CONTRIBUTOR](scope: AsyncApiScope): AsyncApiOperation[] {
    const { transport, delivery } = this.runtime.options;
    const how = this.push.kind === 'in-process' ? 'in-process' : (transport?.name ?? delivery);
    return patternOperations(this.messageHandlers, this.runtime.options, how, scope.controllers);
  }

  /** This transport emits no events of its own; `status` tells its state. */
  on(event: unknown): never {
    throw new ServerEventsNotSupportedError(event);
  }

  /**
   * The listeners are taken before the push port opens (a push that arrives at once finds its listener); the
   * dispatchers are registered once it listens. A failed start releases what it opened: Nest calls no `close()` then.
   */
  private async start(): Promise<void> {
    const listeners = eventListeners(this.messageHandlers, this.runtime.options, (pattern, handler) => this.runner(pattern, handler));
    const broker = inProcessBrokerOf(this.push, this.runtime.options, this.pushOptions, this[IN_PROCESS_BROKER_CLIENT].broker);
    for (const listener of listeners) {
      this.logger.log(
        `${listener.where} → dispatcher ${listener.consumerId} (concurrency ${listener.concurrency}, ackMode ${listener.ackMode})`,
      );
    }
    if (broker !== undefined) return this.startInProcess(broker, listeners);
    this.endpoint = this.pushEndpoint(listeners);
    try {
      const registered = this.runtime.start(listeners);
      await this.endpoint?.open();
      await registered;
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /** Subscribes the listeners on the application's broker, now or once it has started. */
  private async startInProcess(broker: InProcessBrokerTransport, listeners: ListenerDefinition[]): Promise<void> {
    const subscribe = async () => {
      try {
        await this.runtime.start(listeners, broker);
        this.logger.log(`${listeners.length} pattern handler(s) receive in process from this application's broker`);
      } catch (error) {
        await this.close();
        throw error;
      }
    };
    if (!(await this[IN_PROCESS_BROKER_CLIENT].whenStarted(subscribe))) {
      this.logger.log(`The pattern handlers receive in process once this application's broker has started (app.listen())`);
    }
  }

  private pushEndpoint(listeners: readonly ListenerDefinition[]): PushEndpoint | undefined {
    switch (this.push.kind) {
      case 'none':
      case 'in-process':
        return undefined;
      case 'shared':
        return new SharedPushServer(
          this.runtime,
          this.push.server,
          new Map(listeners.map((listener) => [listener.consumerId, `MmmqServer (${listener.where})`])),
        );
      case 'own':
        return new OwnPushServer(this.runtime, this.push.port, this.push.host);
    }
  }

  /** The pattern's handler(s) on one message, through Nest's enhancers and the processing hooks (tracing). */
  private runner(pattern: string, handler: MessageHandler): ListenerDefinition['handle'] {
    return async (content: unknown, message: MessageContext) => {
      const context = new MmmqContext([message, pattern]);
      const data = await this.deserialize(content, message.topic);
      // The result answers a request (`@MessagePattern`); an event handler's is ignored.
      return new Promise<unknown>((resolve, reject) => {
        this.onProcessingStartHook(this.transportId, context, async () => {
          try {
            resolve(await lastValueFrom(this.transformToObservable(await handler(data, context)), { defaultValue: undefined }));
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
    if (this.customDeserializer === undefined) return content;
    const packet = await this.customDeserializer.deserialize(content, { channel: topic });
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
