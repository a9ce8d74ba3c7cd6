import {
  Acknowledgement,
  BATCH_MESSAGES_PATH,
  CONSUMER_ID_HEADER,
  ConsumerAcknowledgement,
  MESSAGES_PATH,
  PUSH_SEQUENCE_HEADER,
  PUSH_SESSION_HEADER,
  RETRY_AFTER_SECONDS,
} from '@mmmq/core';
import { Controller, Headers, HttpStatus, Logger, Post, Req, Res, VERSION_NEUTRAL } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ConsumerClosingError } from '../errors/consumer-closing.error';
import { DeliveryRefusedError } from '../errors/delivery-refused.error';
import { DeliveryTooLargeError } from '../errors/delivery-too-large.error';
import { DeliveryUnauthorizedError } from '../errors/delivery-unauthorized.error';
import { HandlerAbandonedError } from '../errors/handler-abandoned.error';
import { InvalidDeliveryError } from '../errors/invalid-delivery.error';
import { DeliveryHandler } from '../handling/delivery-handler';
import { PushSequencer } from '../handling/push-sequencer';
import { DeliveryBodyReader, RequestWithBody } from './delivery-body.reader';
import { DeliverySignatureVerifier } from './delivery-signature.verifier';
import { parseDeliveryBatch, parseDeliveryRequest, parsePushOrder } from './delivery-request.parser';

/**
 * The push endpoint the broker delivers to: `POST /mmmq/messages`, with the listener's consumer id in the
 * `mmmq-consumer-id` header. The answer is always JSON with an `acknowledgement`; 503 means "not taken, send
 * it again later", and nothing answered with 503 or 4xx was handled (the broker does not count a 503 as a
 * delivery); a handler cut off by the shutdown timeout gets 500. Pushes numbered with `mmmq-push-session`
 * and `mmmq-push-sequence` are handled in that order (see PushSequencer). With `signingSecrets`, a push that is
 * not signed with one of them gets 401 before anything else looks at it.
 */
@Controller({ version: VERSION_NEUTRAL })
export class MessagesController {
  private readonly logger = new Logger('MmmqConsumer');

  constructor(
    private readonly body: DeliveryBodyReader,
    private readonly signatures: DeliverySignatureVerifier,
    private readonly deliveries: DeliveryHandler,
    private readonly sequencer: PushSequencer,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  @Post(MESSAGES_PATH)
  async receive(
    @Req() request: RequestWithBody,
    @Res() response: unknown,
    @Headers(CONSUMER_ID_HEADER) consumerId: string | undefined,
    @Headers(PUSH_SESSION_HEADER) session: string | undefined,
    @Headers(PUSH_SEQUENCE_HEADER) sequence: string | undefined,
  ): Promise<void> {
    try {
      const order = parsePushOrder(session, sequence);
      const delivery = parseDeliveryRequest(await this.readSigned(request));
      const handle = () => this.deliveries.handle(consumerId, delivery);
      this.reply(response, HttpStatus.OK, await this.inOrder(consumerId, delivery.topic, order, handle));
    } catch (error) {
      this.replyToFailure(response, error);
    }
  }

  /** Batched pushes, for dispatchers registered with `batchSize` > 1: `{"messages":[…]}` in, one acknowledgement per message out. */
  @Post(BATCH_MESSAGES_PATH)
  async receiveBatch(
    @Req() request: RequestWithBody,
    @Res() response: unknown,
    @Headers(CONSUMER_ID_HEADER) consumerId: string | undefined,
    @Headers(PUSH_SESSION_HEADER) session: string | undefined,
    @Headers(PUSH_SEQUENCE_HEADER) sequence: string | undefined,
  ): Promise<void> {
    try {
      const order = parsePushOrder(session, sequence);
      const deliveries = parseDeliveryBatch(await this.readSigned(request));
      const handle = () => this.deliveries.handleBatch(consumerId, deliveries);
      const acknowledgements = await this.inOrder(consumerId, deliveries[0].topic, order, handle);
      this.adapterHost.httpAdapter.reply(response, { acknowledgements }, HttpStatus.OK);
    } catch (error) {
      this.replyToFailure(response, error);
    }
  }

  /** The body, once its signature is checked (when `signingSecrets` are set). */
  private async readSigned(request: RequestWithBody): Promise<unknown> {
    const body = await this.body.receive(request);
    this.signatures.verify(request.headers, body);
    return this.body.parse(body);
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

  private replyToFailure(response: unknown, error: unknown): void {
    // Shutdown answered it already (503, DeliveryServerGate); what failed since is the body it cut short.
    if (this.adapterHost.httpAdapter.isHeadersSent(response)) return;
    const message = error instanceof Error ? error.message : String(error);
    const nack: ConsumerAcknowledgement = { acknowledgement: Acknowledgement.NACK, message };
    if (error instanceof DeliveryRefusedError) {
      this.adapterHost.httpAdapter.setHeader(response, 'Retry-After', String(RETRY_AFTER_SECONDS));
      // A sender that retries quickly on its keep-alive connection would keep that connection busy forever,
      // and the HTTP server only closes once every connection is idle: shutting down has to hang up.
      if (error instanceof ConsumerClosingError) this.adapterHost.httpAdapter.setHeader(response, 'Connection', 'close');
      this.reply(response, HttpStatus.SERVICE_UNAVAILABLE, nack);
    } else if (error instanceof HandlerAbandonedError) {
      this.logger.warn(message);
      this.adapterHost.httpAdapter.setHeader(response, 'Connection', 'close');
      this.reply(response, HttpStatus.INTERNAL_SERVER_ERROR, nack);
    } else if (error instanceof DeliveryUnauthorizedError) {
      this.reply(response, HttpStatus.UNAUTHORIZED, nack);
    } else if (error instanceof DeliveryTooLargeError) {
      this.reply(response, HttpStatus.PAYLOAD_TOO_LARGE, nack);
    } else if (error instanceof InvalidDeliveryError) {
      this.reply(response, HttpStatus.BAD_REQUEST, nack);
    } else {
      this.logger.error(`Delivery failed unexpectedly; the broker will retry it: ${message}`, (error as Error)?.stack);
      this.reply(response, HttpStatus.INTERNAL_SERVER_ERROR, nack);
    }
  }

  private reply(response: unknown, status: number, body: ConsumerAcknowledgement): void {
    this.adapterHost.httpAdapter.reply(response, body, status);
  }
}
