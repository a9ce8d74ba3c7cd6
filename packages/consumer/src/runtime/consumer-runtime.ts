import { InProcessBrokerTransport, type MmmqTransport } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { drainConsumer } from './consumer-drain';
import { DeliveryHandler } from '../handling/delivery-handler';
import { FrontHandler } from '../handling/front-handler';
import { ClaimCheckResolver } from '../handling/claim-check-resolver';
import { checkListenerInbox } from '../inbox/listener-inbox.check';
import { ListenerInvoker } from '../handling/listener-invoker';
import { PushSequencer } from '../handling/push-sequencer';
import { BrokerPushSubscriber } from '../http/broker-push-subscriber';
import { DeliveryBodyReader } from '../http/delivery-body.reader';
import { DeliverySignatureVerifier } from '../http/delivery-signature.verifier';
import { PushReceiver } from '../http/push-receiver';
import { PushRequestHandler } from '../http/push-request-handler';
import type { ListenerDefinition } from '../listener/listener-definition';
import { checkListenerDelivery } from './listener-delivery.check';
import { ListenerRegistry } from '../listener/listener-registry';
import { resolveConsumerOptions } from './mmmq-consumer-options.resolver';
import { ResolvedConsumerOptions } from '../config/resolved-consumer-options';
import type { MmmqConsumerOptions } from '../config/mmmq-consumer.options';
import { BrokerPullSubscriber } from '../pull/broker-pull-subscriber';
import { ConsumerApi } from '../pull/consumer-api';
import { DispatcherRegistrar } from '../registration/dispatcher-registrar';
import { RegistrationStatus } from '../registration/registration-status';
import { brokerSubscription } from './broker-subscription';
import { TransportConsumer } from '../transport/transport-consumer';
import { TransportStatus } from '../transport/transport-status';
import { ReplySender } from '../reply/reply-sender';
import { replyRelayRouteOf } from '../reply/reply-sender.provider';

/**
 * The consumer of `MmmqConsumerModule` — options, worker pool, subscriptions on the MMMQ broker (self-registration,
 * push or pull) or on the `transport` option, and shutdown — for a host outside Nest's dependency injection
 * (`@mmmq/microservices`' MmmqServer), which brings its own listeners and, for the MMMQ broker's push, its own HTTP
 * server. Every transport runs through the one TransportConsumer path, as in the module.
 */
export class ConsumerRuntime {
  readonly options: ResolvedConsumerOptions;
  readonly status = new RegistrationStatus();
  private readonly registry = new ListenerRegistry();
  private readonly frontHandler: FrontHandler;
  private readonly api: ConsumerApi;
  private readonly registrar: DispatcherRegistrar;
  private readonly push: BrokerPushSubscriber;
  private readonly pull: BrokerPullSubscriber;
  private readonly transport: TransportConsumer;
  private readonly pushes: PushRequestHandler;
  private readonly server = new HttpAdapterHost();
  private readonly replies: ReplySender;
  private closing: Promise<void> | undefined;

  /** @throws InvalidConsumerOptionsError naming the first invalid option */
  constructor(
    options: MmmqConsumerOptions,
    private readonly logger = new Logger('MmmqConsumer'),
  ) {
    this.options = resolveConsumerOptions(options);
    this.frontHandler = new FrontHandler({ queueSize: this.options.queueSize, maxWorkers: this.options.workers.max });
    this.replies = new ReplySender(replyRelayRouteOf(this.options));
    const invoker = new ListenerInvoker(
      undefined,
      new ClaimCheckResolver(this.options.claimCheck?.store, this.options.claimCheck?.maxBytes),
      undefined,
      this.replies,
    );
    this.api = new ConsumerApi(this.options);
    this.registrar = new DispatcherRegistrar(this.options, this.status, this.server);
    this.push = new BrokerPushSubscriber(this.registry, this.registrar, this.api);
    this.pull = new BrokerPullSubscriber(this.options, this.registry, this.registrar, this.api);
    this.transport = new TransportConsumer(new DeliveryHandler(this.frontHandler, invoker), this.status, new TransportStatus());
    const verifier = new DeliverySignatureVerifier(this.options);
    const receiver = new PushReceiver(
      new DeliveryBodyReader(this.options),
      verifier,
      this.push,
      this.registry,
      new PushSequencer(),
      this.options,
    );
    this.pushes = new PushRequestHandler(receiver, this.registry);
  }

  /**
   * Takes these listeners and subscribes them: on the `transport` option, each in turn, resolving once all receive;
   * on the MMMQ broker by registering their dispatchers (in the background unless `registration.failFast`), a pull
   * listener fetching once its dispatcher is registered. With push, registration waits for {@link listening}.
   * `on` subscribes them on that transport instead of either: the host's own application's broker, in process
   * (`InProcessBrokerTransport`), when neither `broker` nor `transport` is set.
   */
  async start(listeners: readonly ListenerDefinition[], on: MmmqTransport | undefined = this.options.transport): Promise<void> {
    if (this.closing !== undefined) return;
    // The runtime has no ListenerInbox: an inbox listener fails here, naming itself, not at every delivery.
    checkListenerInbox(listeners, undefined, this.options, this.logger);
    this.registry.replaceAll(listeners);
    if (on instanceof InProcessBrokerTransport) this.replies.relayInProcess(on);
    if (on !== undefined) return this.transport.subscribeAll(on, listeners);
    checkListenerDelivery(listeners, this.options, false);
    const { name, subscriberOf, ...how } = brokerSubscription(this.options, listeners, this.push, this.pull);
    await this.transport.subscribeAllOn(name, subscriberOf, listeners, how);
  }

  /** The push endpoint can be reached now: the broker may be told to push to it. */
  listening(): void {
    this.server.listening = true;
  }

  /** True for a push: `POST /mmmq/messages` or `/mmmq/messages/batch`. */
  isPush(request: IncomingMessage): boolean {
    return this.pushes.isPush(request);
  }

  /** True when the push is for one of this runtime's listeners (its `mmmq-consumer-id` header names one). */
  knows(request: IncomingMessage): boolean {
    return this.pushes.knows(request);
  }

  /** Handles a push (see {@link isPush}) and answers it; `hangUp` true closes the connection after it. */
  receive(request: IncomingMessage, response: ServerResponse, hangUp?: () => boolean): void {
    this.pushes.receive(request, response, hangUp);
  }

  /**
   * Stops taking messages, waits up to `shutdownTimeoutMs` for the handlers running (`requestsAnswered` waits for
   * the HTTP server's requests meanwhile), sends the last acknowledgements, leaves the dispatchers, and releases the
   * connections to the broker. Idempotent.
   */
  close(requestsAnswered: (timeoutMs: number) => Promise<void> = async () => {}): Promise<void> {
    this.closing ??= this.shutdown(requestsAnswered);
    return this.closing;
  }

  private async shutdown(requestsAnswered: (timeoutMs: number) => Promise<void>): Promise<void> {
    const { transport, frontHandler, logger } = this;
    try {
      await drainConsumer({ transport, frontHandler, requestsAnswered, timeoutMs: this.options.shutdownTimeoutMs, logger });
    } finally {
      this.registrar.close();
      this.api.onApplicationShutdown();
      this.replies.close();
    }
  }
}
