import { Acknowledgement, CONSUMER_ID_HEADER, ConsumerAcknowledgement, MESSAGES_PATH } from '@mmmq/core';
import { Controller, Headers, HttpStatus, Logger, Post, Req, Res, VERSION_NEUTRAL } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ConsumerClosingError } from '../errors/consumer-closing.error';
import { DeliveryRefusedError } from '../errors/delivery-refused.error';
import { DeliveryTooLargeError } from '../errors/delivery-too-large.error';
import { InvalidDeliveryError } from '../errors/invalid-delivery.error';
import { DeliveryHandler } from '../handling/delivery-handler';
import { DeliveryBodyReader, RequestWithBody } from './delivery-body.reader';
import { parseDeliveryBatch, parseDeliveryRequest } from './delivery-request.parser';

/** Seconds a refused sender is asked to wait; the broker's own backoff decides in the end. */
export const RETRY_AFTER_SECONDS = 1;

/**
 * The push endpoint the broker delivers to: `POST /mmmq/messages`, with the listener's consumer id in the
 * `mmmq-consumer-id` header. The answer is always JSON with an `acknowledgement`; 503 means "not taken, send
 * it again later", and nothing answered with 503 or 4xx was handled.
 */
@Controller({ version: VERSION_NEUTRAL })
export class MessagesController {
  private readonly logger = new Logger('MmmqConsumer');

  constructor(
    private readonly body: DeliveryBodyReader,
    private readonly deliveries: DeliveryHandler,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  @Post(MESSAGES_PATH)
  async receive(
    @Req() request: RequestWithBody,
    @Res() response: unknown,
    @Headers(CONSUMER_ID_HEADER) consumerId: string | undefined,
  ): Promise<void> {
    try {
      const delivery = parseDeliveryRequest(await this.body.read(request));
      this.reply(response, HttpStatus.OK, await this.deliveries.handle(consumerId, delivery));
    } catch (error) {
      this.replyToFailure(response, error);
    }
  }

  /** Batched pushes, for dispatchers registered with `batchSize` > 1: `{"messages":[…]}` in, one acknowledgement per message out. */
  @Post(`${MESSAGES_PATH}/batch`)
  async receiveBatch(
    @Req() request: RequestWithBody,
    @Res() response: unknown,
    @Headers(CONSUMER_ID_HEADER) consumerId: string | undefined,
  ): Promise<void> {
    try {
      const deliveries = parseDeliveryBatch(await this.body.read(request));
      const acknowledgements = await this.deliveries.handleBatch(consumerId, deliveries);
      this.adapterHost.httpAdapter.reply(response, { acknowledgements }, HttpStatus.OK);
    } catch (error) {
      this.replyToFailure(response, error);
    }
  }

  private replyToFailure(response: unknown, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    const nack: ConsumerAcknowledgement = { acknowledgement: Acknowledgement.NACK, message };
    if (error instanceof DeliveryRefusedError) {
      this.adapterHost.httpAdapter.setHeader(response, 'Retry-After', String(RETRY_AFTER_SECONDS));
      // A sender that retries quickly on its keep-alive connection would keep that connection busy forever,
      // and the HTTP server only closes once every connection is idle: shutting down has to hang up.
      if (error instanceof ConsumerClosingError) this.adapterHost.httpAdapter.setHeader(response, 'Connection', 'close');
      this.reply(response, HttpStatus.SERVICE_UNAVAILABLE, nack);
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
