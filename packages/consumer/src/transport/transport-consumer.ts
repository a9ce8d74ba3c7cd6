import type { MmmqTransport, TransportSubscriber } from '@mmmq/core';
import { Injectable, Logger } from '@nestjs/common';
import { InvalidListenerError } from '../errors/invalid-listener.error';
import { DeliveryHandler } from '../handling/delivery-handler';
import type { ListenerDefinition } from '../listener/listener-definition';
import { RegistrationStatus } from '../registration/registration-status';
import { toTransportListener } from './transport-listener';
import { transportSettlement } from './transport-settlement';
import { TransportStatus } from './transport-status';

/**
 * Receives through a transport other than the MMMQ broker (the `transport` option, or the in-memory one of
 * `MmmqTestingModule`): subscribes every listener on it, hands its deliveries to the usual pipeline, and stops it in
 * two steps on shutdown. A delivery the consumer cannot take (shutting down) rejects, so the transport redelivers it.
 */
@Injectable()
export class TransportConsumer {
  private readonly logger = new Logger('MmmqConsumer');
  private subscriber: TransportSubscriber | undefined;

  constructor(
    private readonly deliveries: DeliveryHandler,
    private readonly status: RegistrationStatus,
    private readonly transportStatus: TransportStatus,
  ) {}

  /**
   * Subscribes each listener, once all were found supported; the health indicator says ready once all are.
   * @throws InvalidListenerError naming each listener the transport cannot honour, and why
   */
  async subscribeAll(transport: MmmqTransport, listeners: readonly ListenerDefinition[]): Promise<void> {
    checkSupported(transport, listeners);
    this.status.expect(listeners);
    const subscriber = transport.createSubscriber();
    this.subscriber = subscriber;
    this.transportStatus.watch(transport.name, subscriber);
    for (const listener of listeners) {
      const target = toTransportListener(listener);
      await subscriber.subscribe(target, (delivery) =>
        // The transport bounds what it hands over (its prefetch) until each is settled, so a delivery waits for a
        // worker rather than being refused and sent straight back; with ackMode 'none' it is settled once the queue
        // takes it, so the prefetch keeps bounding it.
        this.deliveries.handle(listener.consumerId, delivery, {
          bounded: false,
          channel: transportSettlement(transport, subscriber, target, delivery),
        }),
      );
      this.status.succeeded(listener);
      this.logger.log(`${listener.where} subscribed on the ${transport.name} transport (consumerId ${listener.consumerId})`);
    }
  }

  /** Shutdown, first step: no new delivery reaches a handler. A failure is logged: the handlers still drain. */
  async stopReceiving(): Promise<void> {
    await this.subscriber?.stopReceiving().catch((error: unknown) => this.stepFailed('stop receiving', error));
  }

  /** Shutdown, last step, once the handlers are done: anything unsettled is delivered again later. */
  async close(): Promise<void> {
    await this.subscriber?.close().catch((error: unknown) => this.stepFailed('close', error));
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
