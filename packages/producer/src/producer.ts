import { setMaxListeners } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import {
  AcceptedMessage,
  AnyEvents,
  type CancelledScheduledMessage,
  EventMap,
  EventMessage,
  EventTopic,
  MmmqValidationError,
  PublishedMessage,
  type ScheduledMessageRef,
  StoredMessage,
} from '@mmmq/core';
import { performance } from 'node:perf_hooks';
import { Inject, Injectable, Logger, OnApplicationShutdown, Optional } from '@nestjs/common';
import { BrokerResponseError } from './errors/broker-response.error';
import { MessageRejectedError } from './errors/message-rejected.error';
import { ProduceError, ProduceFailure, Publication, publicationOf, publishing } from './errors/produce.error';
import { ProducerClosedError } from './errors/producer-closed.error';
import { PRODUCE_OBSERVER, ProduceObserver } from './produce-observer';
import { ProduceOptions } from './produce-options';
import { TransportGateway } from './gateway/transport-gateway';
import { RESOLVED_PRODUCER_OPTIONS, ResolvedProducerOptions } from './mmmq-producer-options.resolver';
import { messageFromArguments, OutgoingMessage, prepareBatch, prepareMessage } from './outgoing-message';
import { ProducerTransaction, TransactionCollector, TransactionResult } from './producer-transaction';
import { PublishBatcher } from './publish-batcher';
import { traceSend } from './send-tracing';
import { isTransient, RetryPolicy } from './retry/retry-policy';
import { ClaimCheckOffloader } from './claim-check/claim-check-offloader';
import { Requester } from './request/requester';
import type { RequestOptions } from './request/request-options';
import type { ReplyStats } from './request/pending-requests';
import { REPLY_ROUTE, type ReplyRoute } from './request/reply-route';
import { replyRouteOf } from './request/reply-route.provider';

/**
 * Publishes messages to the broker and resolves once the broker acknowledged them: as durable (persistent, with
 * the offset), or as received (nonPersistent, see {@link ProduceOptions.deliveryMode}). Failed attempts
 * are retried with backoff, always with the same message ids, and a publish that cannot succeed rejects with
 * a {@link ProduceError}; it never fails silently.
 *
 * @typeParam E event map (topic → content type) that `produce()` checks topics and contents against; see
 * {@link AnyEvents}. Inject it typed: `constructor(private readonly producer: Producer<OrderEvents>) {}`.
 */
@Injectable()
export class Producer<E extends EventMap = AnyEvents> implements OnApplicationShutdown {
  private readonly logger = new Logger('MmmqProducer');
  private readonly policy: RetryPolicy;
  private readonly maxAttempts: number;
  private readonly closing = new AbortController();
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed?: Promise<void>;
  private readonly batcher?: PublishBatcher;
  private readonly claimCheck?: ClaimCheckOffloader;
  private readonly requester: Requester;

  constructor(
    private readonly gateway: TransportGateway,
    @Inject(RESOLVED_PRODUCER_OPTIONS) options: ResolvedProducerOptions,
    @Optional() @Inject(PRODUCE_OBSERVER) private readonly observer?: ProduceObserver,
    @Optional() @Inject(REPLY_ROUTE) route?: ReplyRoute,
  ) {
    this.requester = new Requester(
      route ?? replyRouteOf(options),
      (topic, content, produceOptions) => this.produce(topic as EventTopic<E>, content as E[EventTopic<E>], produceOptions),
      observer,
    );
    this.policy = new RetryPolicy(options);
    this.maxAttempts = options.maxRetryCount + 1;
    // Every retry wait listens on this one signal; hundreds waiting at once is normal, not a leak.
    setMaxListeners(0, this.closing.signal);
    if (options.claimCheck) this.claimCheck = new ClaimCheckOffloader(options.claimCheck);
    if (options.batching) {
      this.batcher = new PublishBatcher(
        options.batching,
        (messages, beforeRetry) => this.sendGrouped(messages, beforeRetry),
        () => this.gateway.failures,
      );
    }
  }

  /**
   * Publishes `content` to `topic` and resolves with the broker's ACK: where it stored the message (persistent), or
   * that it received it (nonPersistent: no offset).
   *
   * Typed by `options.deliveryMode`: `'nonPersistent'` resolves with an {@link AcceptedMessage} (no offset);
   * `'persistent'` or none, the default, with a {@link StoredMessage} whose `offset` is a number; a
   * `DeliveryMode` known only at run time with either. Leaving it out assumes the topic's mode on the broker is the
   * default, persistent: on a topic the broker's `topics` option makes nonPersistent, give
   * `deliveryMode: 'nonPersistent'` to have the ACK typed as it will be.
   * @throws MmmqValidationError (rejected, nothing sent) for an invalid topic, id, headers or content
   * @throws ProduceError when the broker did not acknowledge the message
   */
  produce<K extends EventTopic<E>>(
    topic: K,
    content: E[K],
    options: ProduceOptions & { deliveryMode: 'nonPersistent' },
  ): Promise<AcceptedMessage>;
  produce<K extends EventTopic<E>>(
    topic: K,
    content: E[K],
    options?: ProduceOptions & { deliveryMode?: 'persistent' },
  ): Promise<StoredMessage>;
  produce<K extends EventTopic<E>>(topic: K, content: E[K], options?: ProduceOptions): Promise<PublishedMessage>;
  /**
   * Publishes a message given as `{ topic, content, id?, headers?, deliveryMode? }`, the shape of the original
   * producer; its ACK is typed by `deliveryMode` as above.
   */
  produce(message: EventMessage<E> & { deliveryMode: 'nonPersistent' }): Promise<AcceptedMessage>;
  produce(message: EventMessage<E> & { deliveryMode?: 'persistent' }): Promise<StoredMessage>;
  produce(message: EventMessage<E>): Promise<PublishedMessage>;
  async produce(topicOrMessage: unknown, content?: unknown, options?: ProduceOptions): Promise<PublishedMessage> {
    const prepared = prepareMessage(messageFromArguments(topicOrMessage, content, options));
    if (this.closing.signal.aborted) throw new ProducerClosedError(publicationOf([prepared]));
    const ready = this.claimCheck?.prepare(prepared) ?? prepared;
    // Awaited only when a content is being stored, so small messages reach the batcher in the same turn.
    const outgoing = ready instanceof Promise ? await claimChecked([prepared], ready) : ready;
    const batcher = this.batcher;
    if (batcher) return traceSend([outgoing], () => batcher.add(outgoing));
    return traceSend([outgoing], () => this.send(publicationOf([outgoing]), () => this.gateway.publish(outgoing)));
  }

  /**
   * Publishes a request to `topic` and resolves with its reply: what the listener's handler returned (or its
   * Promise resolved with, or its Observable emitted last), once the request is durable and handled. The message
   * carries the `mmmq-reply-to` and `mmmq-correlation-id` headers (docs/producer.md#request-reply).
   * @typeParam R the reply's type, as the listener returns it (not checked at run time)
   * @throws MmmqValidationError (nothing sent) for an invalid topic, id, headers, content or `timeoutMs`
   * @throws RequestReplyUnavailableError (nothing sent) when no reply can reach this producer
   * @throws ProduceError when the request could not be published
   * @throws RequestTimeoutError when no reply came within `timeoutMs`
   * @throws ReplyError when the listener's handler failed
   * @throws RequestCancelledError when the producer closed first
   */
  request<R = unknown, K extends EventTopic<E> = EventTopic<E>>(topic: K, content: E[K], options?: RequestOptions): Promise<R> {
    return this.requester.request(topic, content, options) as Promise<R>;
  }

  /**
   * Cancels a message scheduled with `delayMs` / `deliverAt` before its time (docs/producer.md#scheduled-messages):
   * resolves once the cancellation is durable; the message is then never delivered. `message` is its id, or its id
   * and offset (from the publish's ACK), which spares the broker a search from the topic's tail back.
   * @throws over HTTP a BrokerResponseError (404: no such message; 409: not scheduled, or its time has come; 400:
   *   invalid), in process the broker's error with the same message; MmmqValidationError when the transport cannot
   */
  cancelScheduled(topic: string, message: string | ScheduledMessageRef): Promise<CancelledScheduledMessage> {
    if (this.closing.signal.aborted) return Promise.reject(new MmmqValidationError('The producer is closed: nothing was cancelled'));
    return this.gateway.cancelScheduled(topic, typeof message === 'string' ? { id: message } : message);
  }

  /** Requests waiting for their reply, replies that answered one, and late replies dropped. */
  replyStats(): ReplyStats {
    return this.requester.stats();
  }

  /** What the batcher sends: one message on its own, several as one atomic batch. */
  private async sendGrouped(messages: OutgoingMessage[], beforeRetry: () => Promise<void>): Promise<PublishedMessage[]> {
    const publication = publicationOf(messages);
    if (messages.length === 1) {
      return [await this.send(publication, () => this.gateway.publish(messages[0]), beforeRetry)];
    }
    return this.send(publication, () => this.gateway.publishBatch(messages), beforeRetry);
  }

  /**
   * Publishes messages, of one topic or several, as one request and one commit on the broker: all of them become
   * durable and visible together, each topic's messages at consecutive offsets in this order, or none is stored.
   * An empty batch resolves to `[]` without a request. Split batches larger than the broker's
   * `http.maxBatchMessages` (default 1000) yourself; the producer never splits one, which would break atomicity.
   * A retry resends the whole batch with the same ids.
   *
   * Typed as {@link produce}: a batch with no message marked `deliveryMode: 'nonPersistent'` is persistent (on
   * topics of the default mode) and resolves with {@link StoredMessage}s, offsets included; one with every message
   * marked so with {@link AcceptedMessage}s; any other with either.
   * @throws MmmqValidationError for an invalid message, prefixed `messages[i]:` (nothing is sent)
   * @throws ProduceError when the broker did not acknowledge the batch (none of it was stored, or, after an
   *   ambiguous failure such as a timeout, possibly all of it: publish it again with the same ids)
   */
  produceBatch<K extends EventTopic<E>>(
    messages: readonly (EventMessage<E, K> & { deliveryMode: 'nonPersistent' })[],
  ): Promise<AcceptedMessage[]>;
  produceBatch<K extends EventTopic<E>>(
    messages: readonly (EventMessage<E, K> & { deliveryMode?: 'persistent' })[],
  ): Promise<StoredMessage[]>;
  produceBatch<K extends EventTopic<E>>(messages: readonly EventMessage<E, K>[]): Promise<PublishedMessage[]>;
  async produceBatch<K extends EventTopic<E>>(messages: readonly EventMessage<E, K>[]): Promise<PublishedMessage[]> {
    const outgoing = prepareBatch(messages);
    if (outgoing.length === 0) return [];
    return this.sendBatch(await this.claimChecked(outgoing));
  }

  /**
   * Runs `work` with a transaction `tx` and, once `work` resolves, publishes every message it added with
   * `tx.produce()` as one batch (one request, one atomic commit, as {@link produceBatch}): all durable and visible
   * together, or none. Resolves with `{ result, published }`: what `work` resolved with, and where each message was
   * stored, in `tx.produce()` order. Nothing is sent while `work` runs; when it throws or rejects, nothing is sent
   * and its error is rethrown as is. A transaction without messages sends nothing (`published` is `[]`).
   * @throws ProducerClosedError before running `work` when the producer is closed, or at commit if it closed
   *   meanwhile
   * @throws ProduceError when the broker did not acknowledge the batch, as for {@link produceBatch}
   */
  async transaction<R>(work: (tx: ProducerTransaction<E>) => R | Promise<R>): Promise<TransactionResult<R>> {
    if (this.closing.signal.aborted) throw new ProducerClosedError(publicationOf([]));
    const tx = new TransactionCollector<E>();
    let result: R;
    try {
      result = await work(tx);
    } catch (error) {
      tx.end('threw');
      throw error;
    }
    const messages = tx.end('resolved');
    return { result, published: messages.length === 0 ? [] : await this.sendBatch(await this.claimChecked(messages)) };
  }

  /**
   * Refuses new publishes, stops waiting to retry, lets attempts already sent finish, then closes the broker
   * connections. Idempotent; called on application shutdown, after listeners' `beforeApplicationShutdown`
   * drain, so handlers can still publish while they finish.
   */
  close(): Promise<void> {
    this.closed ??= this.shutdown();
    return this.closed;
  }

  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  private async shutdown(): Promise<void> {
    this.closing.abort();
    this.requester.close();
    await Promise.allSettled(this.inFlight);
    await this.gateway.close();
  }

  /** The messages of a batch, their large contents stored (see the `claimCheck` option). */
  private claimChecked(messages: OutgoingMessage[]): Promise<OutgoingMessage[]> {
    if (this.claimCheck === undefined) return Promise.resolve(messages);
    return claimChecked(messages, this.claimCheck.prepareBatch(messages));
  }

  private sendBatch(messages: OutgoingMessage[]): Promise<PublishedMessage[]> {
    return traceSend(messages, () => this.send(publicationOf(messages), () => this.gateway.publishBatch(messages)));
  }

  private send<T>(publication: Publication, attempt: () => Promise<T>, beforeRetry?: () => Promise<void>): Promise<T> {
    if (this.closing.signal.aborted) return Promise.reject(new ProducerClosedError(publication));
    const sending = this.observed(publication, this.sendWithRetries(publication, attempt, beforeRetry));
    this.inFlight.add(sending);
    const forget = () => this.inFlight.delete(sending);
    sending.then(forget, forget);
    return sending;
  }

  /** Tells the observer (metrics), if any, how the publication ended and how long it took. */
  private observed<T>(publication: Publication, sending: Promise<T>): Promise<T> {
    const observer = this.observer;
    if (observer === undefined) return sending;
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    sending.then(
      () => observer.produced(publication.topics, 'acked', seconds()),
      () => observer.produced(publication.topics, 'failed', seconds()),
    );
    return sending;
  }

  /** `beforeRetry` is awaited after the backoff, before each retry: batches in flight together retry in order. */
  private async sendWithRetries<T>(publication: Publication, attempt: () => Promise<T>, beforeRetry?: () => Promise<void>): Promise<T> {
    for (let attempts = 1; ; attempts++) {
      try {
        return await attempt();
      } catch (error) {
        const failure = { ...publication, attempts };
        if (!this.policy.shouldRetry(error, attempts)) throw giveUp(failure, error);
        const delayMs = this.policy.delayMs(attempts, error);
        this.observer?.retried(publication.topics);
        this.logger.warn(
          `${publishing(failure)} failed (attempt ${attempts} of ${this.maxAttempts}): ${(error as Error).message}; ` +
            `retrying in ${delayMs} ms with the same ${publication.ids.length === 1 ? 'id' : 'ids'}`,
        );
        // A sleep cut short by close() resolves early rather than throwing, so the check below sees it.
        await delay(delayMs, undefined, { signal: this.closing.signal }).catch(() => undefined);
        await beforeRetry?.();
        if (this.closing.signal.aborted) throw ProduceError.interrupted(failure, error);
      }
    }
  }
}

/** What `storing` resolves with; a failed write becomes the {@link ProduceError} every failed publish is. */
async function claimChecked<T>(messages: OutgoingMessage[], storing: Promise<T>): Promise<T> {
  try {
    return await storing;
  } catch (error) {
    throw ProduceError.notStored({ ...publicationOf(messages), attempts: 0 }, error);
  }
}

function giveUp(failure: ProduceFailure, error: unknown): ProduceError {
  if (isTransient(error)) return ProduceError.exhausted(failure, error);
  if (error instanceof BrokerResponseError) return new MessageRejectedError(failure, error);
  return ProduceError.unexpected(failure, error);
}
