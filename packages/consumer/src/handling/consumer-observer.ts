import type { TransportHealth } from './transport-health';
import type { ConsumerReply } from '../listener/settlement';

/** How a handler run ended: `ack`, `nack` (the broker retries) or `reject` (NACK without retry: dead-lettered). */
export type HandlerOutcome = 'ack' | 'nack' | 'reject';

/** The outcome a reply stands for. */
export function outcomeOf(reply: ConsumerReply): HandlerOutcome {
  if (reply.acknowledgement === 'ACK') return 'ack';
  return reply.retry === false ? 'reject' : 'nack';
}

/**
 * Told about every handler run and shown the worker queue, while `MmmqConsumerMetricsModule` is imported (the only
 * provider); without it nothing is measured.
 */
export interface ConsumerObserver {
  handled(consumerId: string, topic: string, outcome: HandlerOutcome, seconds: number): void;
  /** An `inbox: true` listener received a message it had processed already: acknowledged, its handler not run. */
  inboxDuplicate(consumerId: string, topic: string): void;
  /** Called once, with what reads the queue of deliveries waiting for a worker and the handlers running. */
  watchQueue(load: () => { running: number; waiting: number }): void;
  /** Called once, with what reads whether the transport receives (undefined on the MMMQ broker). */
  watchTransport(status: () => TransportHealth | undefined): void;
}

/** Injection token of the optional {@link ConsumerObserver}. */
export const CONSUMER_OBSERVER = Symbol('MMMQ_CONSUMER_OBSERVER');
