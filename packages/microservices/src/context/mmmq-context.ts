import type { MessageHeaders } from '@mmmq/core';
import type { MessageContext, NackOptions, Transaction } from '@mmmq/consumer';
import { BaseRpcContext } from '@nestjs/microservices';

type MmmqContextArgs = [MessageContext, string];

/**
 * What an `@EventPattern` handler learns about its message with `@Ctx() context: MmmqContext`, like `RmqContext` or
 * `KafkaContext` on Nest's other transports; and, when the handler's ack mode is `manual`, how it settles it.
 */
export class MmmqContext extends BaseRpcContext<MmmqContextArgs> {
  constructor(args: MmmqContextArgs) {
    super(args);
  }

  /** The consumer library's context of this delivery (the same object an `@MMMQListener` handler gets). */
  getMessage(): MessageContext {
    return this.args[0];
  }

  /** The `@EventPattern` this handler was registered with. */
  getPattern(): string {
    return this.args[1];
  }

  /** The producer's message id, the same on every redelivery: the key for de-duplication. */
  getId(): string {
    return this.args[0].id;
  }

  getTopic(): string {
    return this.args[0].topic;
  }

  /** Position of the message in its topic. */
  getOffset(): number {
    return this.args[0].offset;
  }

  getHeaders(): Readonly<MessageHeaders> {
    return this.args[0].headers;
  }

  /** Attempts to deliver this message to this handler in the broker's current run, starting at 1. */
  getDeliveryCount(): number {
    return this.args[0].deliveryCount;
  }

  /** True when this handler may have seen the message before. */
  isRedelivered(): boolean {
    return this.args[0].redelivered;
  }

  /** The handler's dispatcher on the broker. */
  getConsumerId(): string {
    return this.args[0].consumerId;
  }

  /** Epoch milliseconds, or null when the broker does not know. */
  getPublishedAt(): number | null {
    return this.args[0].publishedAt;
  }

  /** Epoch milliseconds after which the broker does not deliver it any more; null when it never expires. */
  getExpiresAt(): number | null {
    return this.args[0].expiresAt;
  }

  /** 0–9, higher delivered first; 4 when the producer gave none. */
  getPriority(): number {
    return this.args[0].priority;
  }

  /** Ack mode `manual`: the message is done (see `MessageContext.ack`). */
  ack(): Promise<void> {
    return this.args[0].ack();
  }

  /** Ack mode `manual`: deliver it again, not before `delayMs` (see `MessageContext.nack`). */
  nack(options?: NackOptions): Promise<void> {
    return this.args[0].nack(options);
  }

  /** Ack mode `manual`: never deliver it again; the broker dead-letters it now with `reason`. */
  terminate(reason: string): Promise<void> {
    return this.args[0].terminate(reason);
  }

  /**
   * Transacted consumption: settles the message and publishes what `work` produces with `tx.produce()` in one broker
   * commit (see `MessageContext.transaction`); needs the server's `broker` option.
   */
  transaction<T>(work: (tx: Transaction) => T | Promise<T>): Promise<T> {
    return this.args[0].transaction(work);
  }

  /** Still working on it: extends the message's lease on the broker (see `MessageContext.inProgress`). */
  inProgress(): Promise<void> {
    return this.args[0].inProgress();
  }
}
