import type { IncomingHttpHeaders } from 'node:http';
import { verifyWebhook, WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER, WebhookVerificationError } from '@mmmq/core';
import { Inject, Injectable } from '@nestjs/common';
import { DeliveryUnauthorizedError } from '../errors/delivery-unauthorized.error';
import { MMMQ_CONSUMER_RESOLVED_OPTIONS, ResolvedConsumerOptions } from '../config/resolved-consumer-options';

/**
 * With `signingSecrets` set, lets through only pushes signed with one of them (Standard Webhooks, over the exact
 * body bytes, within the timestamp tolerance); without, lets everything through.
 */
@Injectable()
export class DeliverySignatureVerifier {
  constructor(@Inject(MMMQ_CONSUMER_RESOLVED_OPTIONS) private readonly options: ResolvedConsumerOptions) {}

  /** @throws DeliveryUnauthorizedError when the push is not signed as it must be */
  verify(headers: IncomingHttpHeaders, body: Buffer): void {
    const { signing } = this.options;
    if (signing === undefined) return;
    try {
      verifyWebhook(
        signing.secrets,
        {
          id: one(headers[WEBHOOK_ID_HEADER]),
          timestamp: one(headers[WEBHOOK_TIMESTAMP_HEADER]),
          signature: one(headers[WEBHOOK_SIGNATURE_HEADER]),
        },
        body,
        { toleranceSeconds: signing.toleranceSeconds },
      );
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      throw new DeliveryUnauthorizedError(error.message, { cause: error });
    }
  }
}

function one(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
