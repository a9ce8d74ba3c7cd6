import {
  Acknowledgement,
  CONSUMER_ID_HEADER,
  ConsumerAcknowledgement,
  PUSH_SEQUENCE_HEADER,
  PUSH_SESSION_HEADER,
  SETTLEMENT_REPLIES_HEADER,
  RETRY_AFTER_SECONDS,
} from '@mmmq/core';
import { HttpStatus, Inject, Injectable, Logger } from '@nestjs/common';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { ConsumerClosingError } from '../errors/consumer-closing.error';
import { DeliveryRefusedError } from '../errors/delivery-refused.error';
import { DeliveryTooLargeError } from '../errors/delivery-too-large.error';
import { DeliveryUnauthorizedError } from '../errors/delivery-unauthorized.error';
import { HandlerAbandonedError } from '../errors/handler-abandoned.error';
import { InvalidDeliveryError } from '../errors/invalid-delivery.error';
import { PushNotAcceptedError } from '../errors/push-not-accepted.error';
import { ListenerNotSubscribedError } from '../errors/listener-not-subscribed.error';
import { PushSequencer } from '../handling/push-sequencer';
import { deliveryOf, takesPushes } from '../listener/listener-delivery';
import { ListenerRegistry } from '../listener/listener-registry';
import { MMMQ_CONSUMER_RESOLVED_OPTIONS, type ResolvedConsumerOptions } from '../config/resolved-consumer-options';
import { BrokerPushSubscriber, PushHandlers } from './broker-push-subscriber';
import { DeliveryBodyReader, parseJson } from './delivery-body.reader';
import {
  parseDeliveryBatch,
  parseDeliveryRequest,
  parsePushOrder,
  parseSharedPush,
  type SharedPushPart,
} from '../handling/delivery-request.parser';
import { DeliverySignatureVerifier } from './delivery-signature.verifier';
import type { PushAnswer } from './push-answer';
import type { SettlementStreamWriter } from './settlement-stream.writer';
import type { SharedSettlementWriter } from './shared-settlement.writer';

/**
 * Takes a push from the broker, whatever HTTP server it arrived on: checks its signature (with `signingSecrets`),
 * parses it, waits for its turn when it is numbered (`mmmq-push-session` / `mmmq-push-sequence`, see PushSequencer),
 * hands it to the handlers BrokerPushSubscriber holds for the listener its `mmmq-consumer-id` header names, and says
 * what to answer. 503 means "not taken, send
 * it again later": nothing answered with 503 or 4xx was handled (the broker does not count a 503 as a delivery); a
 * handler cut off by the shutdown timeout gets 500. A listener that pulls (`delivery: 'pull'`) takes no pushes: 404.
 */
@Injectable()
export class PushReceiver {
  private readonly logger = new Logger('MmmqConsumer');

  constructor(
    private readonly body: DeliveryBodyReader,
    private readonly signatures: DeliverySignatureVerifier,
    private readonly subscriber: BrokerPushSubscriber,
    private readonly registry: ListenerRegistry,
    private readonly sequencer: PushSequencer,
    @Inject(MMMQ_CONSUMER_RESOLVED_OPTIONS) private readonly options: Pick<ResolvedConsumerOptions, 'delivery'>,
  ) {}

  /** `POST /mmmq/messages`: one message. Never throws. */
  async receive(request: IncomingMessage): Promise<PushAnswer> {
    try {
      const { consumerId, order } = this.addressOf(request.headers);
      const delivery = parseDeliveryRequest(await this.readSigned(request));
      const handle = () => {
        const handlers = this.handlersOf(consumerId);
        return handlers === undefined ? Promise.resolve(this.unknown(consumerId)) : handlers.handle(delivery);
      };
      const acknowledgement = await this.inOrder(consumerId, delivery.topic, order, handle);
      return { status: HttpStatus.OK, body: acknowledgement, headers: {} };
    } catch (error) {
      return this.answerTo(error);
    }
  }

  /**
   * `POST /mmmq/messages/batch`: `{"messages":[…]}` in, one acknowledgement per message out. Never throws.
   * @param streamOf for a streamed reply: called once the batch is parsed, with its size; the writer it returns hears
   *   each message's acknowledgement as its handler finishes
   */
  async receiveBatch(request: IncomingMessage, streamOf?: (size: number) => SettlementStreamWriter): Promise<PushAnswer> {
    try {
      const { consumerId, order } = this.addressOf(request.headers);
      const deliveries = parseDeliveryBatch(await this.readSigned(request));
      const stream = streamOf?.(deliveries.length);
      const onSettled = stream && ((index: number, acknowledgement: ConsumerAcknowledgement) => stream.settled(index, acknowledgement));
      const handle = () => {
        const handlers = this.handlersOf(consumerId);
        return handlers === undefined
          ? Promise.resolve(deliveries.map(() => this.unknown(consumerId)))
          : handlers.handleBatch(deliveries, onSettled, carriesReplies(request.headers));
      };
      const acknowledgements = await this.inOrder(consumerId, deliveries[0].topic, order, handle);
      return { status: HttpStatus.OK, body: { acknowledgements }, headers: {} };
    } catch (error) {
      return this.answerTo(error);
    }
  }

  /**
   * `POST /mmmq/messages/shared`: the windows of several subscriptions in one push, each handled as a batched push of
   * its consumer id (in its session's order when numbered), all at once; `streamOf` answers them line by line. A part
   * for a consumer id no listener here takes pushes for is refused with 404 (another module may: the broker then
   * pushes it on its own), one not taken now with 503. Never throws.
   * @returns the answer to a push refused whole before any part ran (signature, size, body, shutting down);
   *   undefined once the stream answered every part
   */
  async receiveShared(request: IncomingMessage, streamOf: (sizes: number[]) => SharedSettlementWriter): Promise<PushAnswer | undefined> {
    let parts: SharedPushPart[];
    try {
      parts = parseSharedPush(await this.readSigned(request));
      // Refused whole once shutdown began (ConsumerClosingError: 503).
      this.subscriber.handlersOf(undefined);
    } catch (error) {
      return this.answerTo(error);
    }
    const stream = streamOf(parts.map((part) => part.deliveries.length));
    const carries = carriesReplies(request.headers);
    await Promise.all(parts.map((part, i) => this.receivePart(part, i, stream, carries)));
    stream.finish();
    return undefined;
  }

  private async receivePart(
    { consumerId, order, deliveries }: SharedPushPart,
    part: number,
    stream: SharedSettlementWriter,
    carries: boolean,
  ): Promise<void> {
    try {
      const listener = this.registry.find(consumerId);
      if (listener === undefined || deliveryOf(listener, this.options) === 'pull') {
        throw new PushNotAcceptedError(`No listener of these takes pushes for consumer id ${JSON.stringify(consumerId)}`);
      }
      const handle = () => {
        const handlers = this.handlersOf(consumerId);
        if (handlers === undefined) return Promise.resolve(deliveries.map(() => this.unknown(consumerId)));
        return handlers.handleBatch(deliveries, (index, acknowledgement) => stream.settled(part, index, acknowledgement), carries);
      };
      stream.answered(part, await this.inOrder(consumerId, deliveries[0].topic, order, handle));
    } catch (error) {
      const answer = this.answerTo(error);
      stream.refused(part, answer.status, (answer.body as ConsumerAcknowledgement).message ?? '');
    }
  }

  /** Whether shared pushes are for these listeners: some of them take pushes. */
  takesSharedPushes(): boolean {
    return takesPushes(this.registry.all(), this.options);
  }

  private addressOf(headers: IncomingHttpHeaders): { consumerId: string | undefined; order: ReturnType<typeof parsePushOrder> } {
    const consumerId = single(headers[CONSUMER_ID_HEADER]);
    if (this.pulls(consumerId)) {
      throw new PushNotAcceptedError(
        `The listener of ${consumerId ?? 'this push'} pulls its messages (delivery: 'pull'); it takes no pushed deliveries`,
      );
    }
    const order = parsePushOrder(single(headers[PUSH_SESSION_HEADER]), single(headers[PUSH_SEQUENCE_HEADER]));
    return { consumerId, order };
  }

  /** The push names a listener that pulls, or names none that pushes while every listener pulls. */
  private pulls(consumerId: string | undefined): boolean {
    const listener = consumerId === undefined ? undefined : this.registry.find(consumerId);
    if (listener !== undefined) return deliveryOf(listener, this.options) === 'pull';
    return !takesPushes(this.registry.all(), this.options);
  }

  /**
   * The handlers of the listener a push names; undefined when this application has no such listener (it is NACKed).
   * @throws ListenerNotSubscribedError for one of its listeners not subscribed yet (start-up still runs): 503
   * @throws ConsumerClosingError once shutdown began: 503
   */
  private handlersOf(consumerId: string | undefined): PushHandlers | undefined {
    const handlers = this.subscriber.handlersOf(consumerId);
    if (handlers === undefined && consumerId !== undefined && this.registry.find(consumerId) !== undefined) {
      throw new ListenerNotSubscribedError(
        `The listener of ${consumerId} is not subscribed yet (start-up is running); the broker will send it again`,
      );
    }
    return handlers;
  }

  /** The answer to a push for no listener of this application: a NACK, which the broker retries and then dead-letters. */
  private unknown(consumerId: string | undefined): ConsumerAcknowledgement {
    return {
      acknowledgement: Acknowledgement.NACK,
      message:
        `No listener of this application has consumer id ${JSON.stringify(consumerId ?? null)} (known: ` +
        `${
          this.registry
            .all()
            .map((known) => known.consumerId)
            .join(', ') || 'none'
        }); the broker will retry ` +
        `and then dead-letter the message`,
    };
  }

  /** The body, once its signature is checked (when `signingSecrets` are set). */
  private async readSigned(request: IncomingMessage): Promise<unknown> {
    const body = await this.body.read(request);
    this.signatures.verify(request.headers, body);
    return parseJson(body);
  }

  /** A numbered push waits for its turn among the pushes of its subscription; others run at once. */
  private inOrder<T>(
    consumerId: string | undefined,
    topic: string,
    order: { session: string; sequence: number } | undefined,
    handle: () => Promise<T>,
  ): Promise<T> {
    return order ? this.sequencer.run(consumerId ?? '', topic, order, handle) : handle();
  }

  private answerTo(error: unknown): PushAnswer {
    const message = error instanceof Error ? error.message : String(error);
    const nack = (status: number, headers: Record<string, string> = {}): PushAnswer => ({
      status,
      body: { acknowledgement: Acknowledgement.NACK, message },
      headers,
    });
    if (error instanceof DeliveryRefusedError) {
      // A sender that retries quickly on its keep-alive connection would keep that connection busy forever,
      // and the HTTP server only closes once every connection is idle: shutting down has to hang up.
      const hangUp: Record<string, string> = error instanceof ConsumerClosingError ? { Connection: 'close' } : {};
      return nack(HttpStatus.SERVICE_UNAVAILABLE, { 'Retry-After': String(RETRY_AFTER_SECONDS), ...hangUp });
    }
    if (error instanceof HandlerAbandonedError) {
      this.logger.warn(message);
      return nack(HttpStatus.INTERNAL_SERVER_ERROR, { Connection: 'close' });
    }
    if (error instanceof DeliveryUnauthorizedError) return nack(HttpStatus.UNAUTHORIZED);
    if (error instanceof DeliveryTooLargeError) return nack(HttpStatus.PAYLOAD_TOO_LARGE);
    if (error instanceof InvalidDeliveryError) return nack(HttpStatus.BAD_REQUEST);
    if (error instanceof PushNotAcceptedError) return nack(HttpStatus.NOT_FOUND);
    this.logger.error(`Delivery failed unexpectedly; the broker will retry it: ${message}`, (error as Error)?.stack);
    return nack(HttpStatus.INTERNAL_SERVER_ERROR);
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The broker relays the replies that acknowledgements carry (docs/http-api.md § Replies in the settlement). */
function carriesReplies(headers: IncomingHttpHeaders): boolean {
  return headers[SETTLEMENT_REPLIES_HEADER] === '1';
}
