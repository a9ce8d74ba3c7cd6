import { DEFAULT_PRIORITY, type DeliveryRequest, type MessageHeaders } from '@mmmq/core';
import { SettlementError } from '../errors/settlement.error';
import { Settlement } from './settlement';
import type { Transaction } from './transaction';

/** What `context.nack()` may say. */
export interface NackOptions {
  /** Redeliver not before this many milliseconds (0 to 3 600 000). Default: the broker's backoff. */
  delayMs?: number;
  /** Why, recorded by the broker (and in the dead letter if it comes to that). */
  message?: string;
}

/**
 * What a listener may learn about the message besides its content, and (with `ackMode: 'manual'`) how it
 * settles it; declare it as the handler's second parameter, or anywhere with `@Ctx()`. It is a class, not an
 * interface, so that discovery can tell it from a second content parameter.
 */
export class MessageContext {
  /** The dispatcher this delivery is for (the listener's consumer id). */
  readonly consumerId: string;
  /** The producer's message id, the same on every redelivery: the key for de-duplication. */
  readonly id: string;
  readonly topic: string;
  readonly headers: Readonly<MessageHeaders>;
  /** Position of the message in its topic. */
  readonly offset: number;
  /** Attempts to deliver this message to this listener in the broker's current run, starting at 1. */
  readonly deliveryCount: number;
  /** True when this listener may have seen the message before. */
  readonly redelivered: boolean;
  /** Epoch milliseconds, or null when the broker does not know. */
  readonly publishedAt: number | null;
  /**
   * Epoch milliseconds (broker's wall clock) after which the broker does not deliver the message any more; null when
   * it never expires. A delivery that started before it finishes normally.
   */
  readonly expiresAt: number | null;
  /** 0–9, higher delivered first (4 when the producer gave none). */
  readonly priority: number;
  readonly #settlement: Settlement;
  /** Present while an `inbox: true` listener runs: the inbox's database transaction. */
  readonly #inbox: { transaction: unknown } | undefined;

  /** @param inbox the inbox transaction the handler runs in (listeners with `inbox: true`) */
  constructor(consumerId: string, delivery: DeliveryRequest, settlement?: Settlement, inbox?: { transaction: unknown }) {
    this.consumerId = consumerId;
    this.id = delivery.id;
    this.topic = delivery.topic;
    this.headers = delivery.headers;
    this.offset = delivery.offset;
    this.deliveryCount = delivery.deliveryCount;
    this.redelivered = delivery.redelivered;
    this.publishedAt = delivery.publishedAt;
    this.expiresAt = delivery.expiresAt ?? null;
    this.priority = delivery.priority ?? DEFAULT_PRIORITY;
    this.#settlement = settlement ?? new Settlement(consumerId, 'auto');
    this.#inbox = inbox;
  }

  /**
   * The database transaction of the inbox (docs/exactly-once.md#inbox), for a listener with `inbox: true`: the one
   * in which this message's (id, consumer id) was reserved. Write the handler's effects in it — they commit with the
   * reservation, or roll back with it. `Tx` is what the inbox's transaction runner hands out (say TypeORM's
   * `EntityManager`, or a `pg` `PoolClient`).
   * @example `await context.inboxTransaction<EntityManager>().insert(Charge, { orderId })`
   * @throws SettlementError when the listener does not run through the inbox
   */
  inboxTransaction<Tx>(): Tx {
    if (this.#inbox === undefined) {
      throw new SettlementError(
        `${this.consumerId}: context.inboxTransaction() needs a listener with inbox: true (@MMMQListener(pattern, { inbox: true }))`,
      );
    }
    return this.#inbox.transaction as Tx;
  }

  /**
   * `manual` mode: the message is done. Pulled: resolves once the broker recorded it durably, rejects with
   * `LeaseLostError` if the lease was lost (the message comes again). Pushed: resolves at once; the reply that
   * carries the ACK goes out when the handler returns.
   * @throws SettlementError (synchronously) in another mode, or when the message was settled already
   */
  ack(): Promise<void> {
    return this.#settlement.settle({ kind: 'ack' }, 'ack()');
  }

  /** `manual` mode: redeliver it, not before `delayMs`. Settles like {@link ack}. */
  nack(options: NackOptions = {}): Promise<void> {
    return this.#settlement.settle({ kind: 'nack', delayMs: options.delayMs, message: options.message }, 'nack()');
  }

  /** `manual` mode: never redeliver it; the broker dead-letters it now with `reason`. Settles like {@link ack}. */
  terminate(reason: string): Promise<void> {
    return this.#settlement.settle({ kind: 'terminate', reason: String(reason) }, 'terminate()');
  }

  /**
   * Transacted consumption: runs `work`, which adds outputs with `tx.produce(topic, content, options?)`, then settles
   * this message and publishes the outputs in one broker commit (`POST /mmmq/transactions`) — all visible and the
   * message settled together, or nothing published (docs/consumer.md, "Transactions"). Resolves with what `work`
   * returned once that is durable; the consumer does not acknowledge the message again. If `work` throws, nothing is
   * published and the error passes through (the message is NACKed as usual). Rejects with `LeaseLostError` when the
   * broker no longer holds this delivery's lease (nothing published; the message comes again). Once per delivery,
   * any ack mode but `none`; needs the consumer option `broker`. Await it before the handler returns.
   * @throws SettlementError when it cannot be used here
   */
  transaction<T>(work: (tx: Transaction) => T | Promise<T>): Promise<T> {
    return this.#settlement.transaction(work);
  }

  /**
   * Still working on it: extends the message's lease on the broker (`POST /mmmq/consumers/{id}/extend`), so it is
   * not redelivered while the handler runs. Any mode but `none`. Rejects with `LeaseLostError` when the lease is
   * gone already, and with `SettlementError` when it cannot be extended (no `broker` option, or a broker
   * without leases).
   */
  inProgress(): Promise<void> {
    return this.#settlement.inProgress();
  }
}
