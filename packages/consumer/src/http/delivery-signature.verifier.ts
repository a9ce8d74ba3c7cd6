import type { IncomingHttpHeaders } from 'node:http';
import { verifyWebhook, WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER, WebhookVerificationError } from '@mmmq/core';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { DeliveryUnauthorizedError } from '../errors/delivery-unauthorized.error';
import { InvalidDeliveryError } from '../errors/invalid-delivery.error';
import { MMMQ_CONSUMER_RESOLVED_OPTIONS, ResolvedConsumerOptions } from '../mmmq-consumer-options.resolver';
import type { ReceivedBody } from './delivery-body.reader';

/**
 * With `signingSecrets` set, lets through only pushes signed with one of them (Standard Webhooks, over the exact
 * body bytes, within the timestamp tolerance); without, lets everything through.
 */
@Injectable()
export class DeliverySignatureVerifier {
  private readonly logger = new Logger('MmmqConsumer');
  private rawBodyMissingLogged = false;

  constructor(@Inject(MMMQ_CONSUMER_RESOLVED_OPTIONS) private readonly options: ResolvedConsumerOptions) {}

  /**
   * @throws DeliveryUnauthorizedError when the push is not signed as it must be
   * @throws InvalidDeliveryError when a body parser left no bytes to check the signature against
   */
  verify(headers: IncomingHttpHeaders, body: ReceivedBody): void {
    const { signing } = this.options;
    if (signing === undefined) return;
    if (!('bytes' in body)) throw this.rawBodyMissing();
    try {
      verifyWebhook(
        signing.secrets,
        {
          id: one(headers[WEBHOOK_ID_HEADER]),
          timestamp: one(headers[WEBHOOK_TIMESTAMP_HEADER]),
          signature: one(headers[WEBHOOK_SIGNATURE_HEADER]),
        },
        body.bytes,
        { toleranceSeconds: signing.toleranceSeconds },
      );
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      throw new DeliveryUnauthorizedError(error.message, { cause: error });
    }
  }

  /** A deployment mistake, the same for every push: explained in the log once, and to the broker each time. */
  private rawBodyMissing(): InvalidDeliveryError {
    const message =
      'signingSecrets is set, but a body parser consumed the delivery body and left no bytes to check the ' +
      'signature against: create the application with { rawBody: true } (or { bodyParser: false })';
    if (!this.rawBodyMissingLogged) this.logger.error(message);
    this.rawBodyMissingLogged = true;
    return new InvalidDeliveryError(message);
  }
}

function one(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
