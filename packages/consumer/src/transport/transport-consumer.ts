import type { MmmqTransport, TransportSubscriber } from '@mmmq/core';
import { Injectable, Logger } from '@nestjs/common';
import { InvalidListenerError } from '../errors/invalid-listener.error';
import { DeliveryHandler } from '../handling/delivery-handler';
import type { ListenerDefinition } from '../listener/listener-definition';
import { RegistrationStatus } from '../registration/registration-status';
import { toTransportListener } from './transport-listener';
import { settlementChannels } from './transport-settlement';
import { TransportStatus } from './transport-status';

/** How a consumer subscribes its listeners. */
export interface SubscribeAllOptions {
  /**
   * Subscribe in the background: resolve at once, each listener receiving once its subscription is in place (the
   * MMMQ broker's self-registration without `registration.failFast`, retried until the broker answers). Otherwise
   * one after another, resolving once all receive; a failure closes the subscriber and rejects. Default false.
   */
  background?: boolean;
  /** Whether the health indicator waits for the subscriptions (not when nothing registers: `autoRegister: false`). Default true. */
  reported?: boolean;
}

/** The subscriber of every listener, or each listener's own (the MMMQ broker's push or pull, as the listener says). */
export type SubscriberOf = TransportSubscriber | ((listener: ListenerDefinition) => TransportSubscriber);

/**
 * Receives through a transport — the MMMQ broker (self-registration, then push or pull), the `transport` option, or
 * the in-memory one of `MmmqTestingModule` — on one path: subscribes every listener on its subscriber, hands the
 * deliveries to the worker pool (waiting for room, or refused when the queue is full, as the subscriber's `overflow`
 * says; leases and transactions as it offers them), and stops it in two steps on shutdown. A delivery the consumer
 * cannot take (shutting down) rejects, so the transport delivers it again.
 */
@Injectable()
export class TransportConsumer {
  private readonly logger = new Logger('MmmqConsumer');
  /** Every subscriber a listener was subscribed on: shutdown stops each. */
  private readonly subscribers = new Set<TransportSubscriber>();
  private stopping: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly deliveries: DeliveryHandler,
    private readonly status: RegistrationStatus,
    private readonly transportStatus: TransportStatus,
  ) {}

  /**
   * Subscribes each listener on a new subscriber of `transport`, once all were found supported.
   * @throws InvalidListenerError naming each listener the transport cannot honour, and why
   */
  async subscribeAll(transport: MmmqTransport, listeners: readonly ListenerDefinition[]): Promise<void> {
    checkSupported(transport, listeners);
    const subscriber = transport.createSubscriber();
    // The MMMQ broker's own subscribers (subscribeAllOn alone) report through the registration status instead.
    this.transportStatus.watch(transport.name, subscriber);
    await this.subscribeAllOn(transport.name, subscriber, listeners);
  }

  /** Subscribes each listener on its subscriber; the health indicator says ready once all are (see the options). */
  async subscribeAllOn(
    name: string,
    subscriberOf: SubscriberOf,
    listeners: readonly ListenerDefinition[],
    { background = false, reported = true }: SubscribeAllOptions = {},
  ): Promise<void> {
    this.status.expect(reported ? listeners : []);
    const pick = typeof subscriberOf === 'function' ? subscriberOf : () => subscriberOf;
    const subscribers = listeners.map((listener) => pick(listener));
    subscribers.forEach((subscriber) => this.subscribers.add(subscriber));
    if (background) {
      // All at once: the subscriber takes their deliveries from now on, and puts their subscriptions in place in turn.
      listeners.forEach((listener, i) => {
        this.subscribe(name, subscribers[i], listener).catch((error: unknown) => this.backgroundFailed(error));
      });
      return;
    }
    try {
      for (const [i, listener] of listeners.entries()) await this.subscribe(name, subscribers[i], listener);
    } catch (error) {
      // Nest runs no shutdown hook after a failed bootstrap: the listeners subscribed already must stop here.
      await this.stopReceiving();
      await this.close();
      throw error;
    }
  }

  /** Shutdown, first step: no new delivery reaches a handler. A failure is logged: the handlers still drain. Idempotent. */
  stopReceiving(): Promise<void> {
    this.stopping ??= this.eachSubscriber('stop receiving', (subscriber) => subscriber.stopReceiving());
    return this.stopping;
  }

  /** Shutdown, last step, once the handlers are done: anything unsettled is delivered again later. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.eachSubscriber('close', (subscriber) => subscriber.close());
    return this.closing;
  }

  private async eachSubscriber(step: string, run: (subscriber: TransportSubscriber) => Promise<void>): Promise<void> {
    await Promise.all([...this.subscribers].map((subscriber) => run(subscriber).catch((error: unknown) => this.stepFailed(step, error))));
  }

  private async subscribe(name: string, subscriber: TransportSubscriber, listener: ListenerDefinition): Promise<void> {
    const target = toTransportListener(listener);
    const channelOf = settlementChannels(name, subscriber, target);
    const overflow = subscriber.overflow ?? 'wait';
    await subscriber.subscribe(
      target,
      (delivery) => this.deliveries.handle(listener, delivery, overflow, channelOf(delivery)),
      (deliveries, onSettled, carriesReplies) => this.deliveries.handleBatch(listener, deliveries, channelOf, onSettled, carriesReplies),
    );
    this.status.succeeded(listener);
    this.logger.log(`${listener.where} subscribed on the ${name} transport (consumerId ${listener.consumerId})`);
  }

  /** A background subscription that gave up: it said why (the registration's error); shutdown is no failure. */
  private backgroundFailed(error: unknown): void {
    if (this.stopping !== undefined) return;
    this.logger.error(error instanceof Error ? error.message : String(error));
  }

  private stepFailed(step: string, error: unknown): void {
    this.logger.warn(
      `The transport's subscriber failed to ${step} on shutdown; what is not settled is delivered again: ` +
        `${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function checkSupported(transport: MmmqTransport, listeners: readonly ListenerDefinition[]): void {
  const problems = listeners.flatMap((listener) => {
    const reasons = transport.unsupported(toTransportListener(listener));
    return reasons.length === 0 ? [] : [`${listener.where}: ${reasons.join('; ')}`];
  });
  if (problems.length > 0) {
    throw new InvalidListenerError(
      `The ${transport.name} transport cannot honour ${problems.length === 1 ? 'this listener' : 'these listeners'} as ` +
        `declared; change ${problems.length === 1 ? 'it' : 'them'} or use the MMMQ broker: ${problems.join(' | ')}`,
    );
  }
}
