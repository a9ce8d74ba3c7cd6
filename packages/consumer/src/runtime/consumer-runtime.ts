import { BATCH_MESSAGES_PATH, CONSUMER_ID_HEADER, MESSAGES_PATH, writeJson } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { drainConsumer } from '../consumer-drain';
import { InvalidConsumerOptionsError } from '../errors/invalid-consumer-options.error';
import { DeliveryHandler } from '../handling/delivery-handler';
import { FrontHandler } from '../handling/front-handler';
import { ClaimCheckResolver } from '../handling/claim-check-resolver';
import { checkListenerInbox } from '../inbox/listener-inbox.check';
import { ListenerInvoker } from '../handling/listener-invoker';
import { PushSequencer } from '../handling/push-sequencer';
import { DeliveryBodyReader } from '../http/delivery-body.reader';
import { DeliverySignatureVerifier } from '../http/delivery-signature.verifier';
import { PushReceiver } from '../http/push-receiver';
import type { ListenerDefinition } from '../listener/listener-definition';
import { ListenerRegistry } from '../listener/listener-registry';
import { ResolvedConsumerOptions, resolveConsumerOptions } from '../mmmq-consumer-options.resolver';
import type { MmmqConsumerOptions } from '../mmmq-consumer.options';
import { ConsumerApi } from '../pull/consumer-api';
import { PullConsumer } from '../pull/pull-consumer';
import { DispatcherRegistrar } from '../registration/dispatcher-registrar';
import { RegistrationStatus } from '../registration/registration-status';

/**
 * The consumer of `MmmqConsumerModule` — options, worker pool, push handling, pull loops, self-registration and
 * shutdown — for a host outside Nest's dependency injection (`@mmmq/microservices`' MmmqServer), which brings its
 * own listeners and, for push, its own HTTP server.
 */
export class ConsumerRuntime {
  readonly options: ResolvedConsumerOptions;
  readonly status = new RegistrationStatus();
  private readonly registry = new ListenerRegistry();
  private readonly frontHandler: FrontHandler;
  private readonly api: ConsumerApi;
  private readonly pull: PullConsumer;
  private readonly registrar: DispatcherRegistrar;
  private readonly receiver: PushReceiver;
  private readonly server = new HttpAdapterHost();
  private closing: Promise<void> | undefined;

  /** @throws InvalidConsumerOptionsError naming the first invalid option, or `transport` (the MMMQ broker only) */
  constructor(
    options: MmmqConsumerOptions,
    private readonly logger = new Logger('MmmqConsumer'),
  ) {
    this.options = resolveConsumerOptions(options);
    if (this.options.transport !== undefined) {
      throw new InvalidConsumerOptionsError(
        `transport is not supported here: this runtime (@mmmq/microservices' MmmqServer) receives from the MMMQ broker ` +
          `only; receive through the ${this.options.transport.name} transport with MmmqConsumerModule and @MMMQListener`,
      );
    }
    this.frontHandler = new FrontHandler({ queueSize: this.options.queueSize, maxWorkers: this.options.workers.max });
    const invoker = new ListenerInvoker(
      undefined,
      new ClaimCheckResolver(this.options.claimCheck?.store, this.options.claimCheck?.maxBytes),
    );
    this.api = new ConsumerApi(this.options);
    this.pull = new PullConsumer(this.options, this.frontHandler, invoker, this.api);
    this.registrar = new DispatcherRegistrar(this.options, this.status, this.server);
    const deliveries = new DeliveryHandler(this.registry, this.frontHandler, invoker, this.api);
    const verifier = new DeliverySignatureVerifier(this.options);
    this.receiver = new PushReceiver(new DeliveryBodyReader(this.options), verifier, deliveries, new PushSequencer(), this.options);
  }

  /**
   * Takes these listeners and registers their dispatchers (in the background unless `registration.failFast`); a pull
   * listener starts fetching once its dispatcher is registered. With push, registration waits for {@link listening}.
   */
  async start(listeners: readonly ListenerDefinition[]): Promise<void> {
    if (this.closing !== undefined) return;
    // The runtime has no ListenerInbox: an inbox listener fails here, naming itself, not at every delivery.
    checkListenerInbox(listeners, undefined, this.options, this.logger);
    this.registry.replaceAll(listeners);
    await this.registrar.registerAll(listeners, (listener) => this.pull.start(listener));
  }

  /** The push endpoint can be reached now: the broker may be told to push to it. */
  listening(): void {
    this.server.listening = true;
  }

  /** True for a push: `POST /mmmq/messages` or `/mmmq/messages/batch`. */
  isPush(request: IncomingMessage): boolean {
    const path = request.url?.split('?', 1)[0];
    return request.method === 'POST' && (path === MESSAGES_PATH || path === BATCH_MESSAGES_PATH);
  }

  /** True when the push is for one of this runtime's listeners (its `mmmq-consumer-id` header names one). */
  knows(request: IncomingMessage): boolean {
    const consumerId = request.headers[CONSUMER_ID_HEADER];
    return typeof consumerId === 'string' && this.registry.find(consumerId) !== undefined;
  }

  /**
   * Handles a push (see {@link isPush}) and answers it.
   * @param hangUp asked when the answer is ready: true closes the connection after it (the server is closing)
   */
  receive(request: IncomingMessage, response: ServerResponse, hangUp: () => boolean = () => false): void {
    const path = request.url?.split('?', 1)[0];
    const answered = path === BATCH_MESSAGES_PATH ? this.receiver.receiveBatch(request) : this.receiver.receive(request);
    void answered.then((answer) => {
      // Shutdown answered it already (503, HttpShutdownGate); what failed since is the body it cut short.
      if (response.headersSent) return;
      if (hangUp()) response.shouldKeepAlive = false;
      writeJson(response, answer.status, answer.body, answer.headers);
    });
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
    const { pull, frontHandler, registrar, logger } = this;
    try {
      await drainConsumer({ pull, frontHandler, requestsAnswered, registrar, timeoutMs: this.options.shutdownTimeoutMs, logger });
    } finally {
      this.registrar.close();
      this.api.onApplicationShutdown();
    }
  }
}
