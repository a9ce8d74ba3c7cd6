import { Acknowledgement, ConsumerAcknowledgement, DeliveryRequest } from '@mmmq/core';
import { Injectable, Logger } from '@nestjs/common';
import { NonRetriableError } from '../errors/non-retriable.error';
import type { ListenerDefinition } from '../listener/listener-definition';
import { MessageContext } from '../listener/message-context';
import { convertContent } from './content-converter';

const ACK: ConsumerAcknowledgement = { acknowledgement: Acknowledgement.ACK };

/**
 * Runs one listener on one delivery and turns the outcome into the acknowledgement: ACK once the handler
 * succeeded; NACK (the broker retries) when it threw; NACK with `retry: false` (the broker dead-letters at
 * once) when the content is invalid or the handler threw or returned a `NonRetriableError`. It never throws.
 */
@Injectable()
export class ListenerInvoker {
  private readonly logger = new Logger('MmmqConsumer');

  async invoke(listener: ListenerDefinition, delivery: DeliveryRequest): Promise<ConsumerAcknowledgement> {
    const conversion = await convertContent(listener.contentType, delivery.content);
    if (!conversion.valid) return this.reject(listener, delivery, `Message rejected: ${conversion.reason}`);
    let result: unknown;
    try {
      result = await listener.handle(conversion.value, new MessageContext(listener.consumerId, delivery));
    } catch (error) {
      if (error instanceof NonRetriableError) return this.reject(listener, delivery, error.message);
      const message = error instanceof Error ? error.message : String(error);
      this.logger.warn(
        `${listener.where} failed on message ${delivery.id} from ${delivery.topic} (attempt ${delivery.deliveryCount}); ` +
          `the broker will retry it: ${message}`,
      );
      return { acknowledgement: Acknowledgement.NACK, message };
    }
    if (result instanceof NonRetriableError) return this.reject(listener, delivery, result.message);
    return ACK;
  }

  private reject(listener: ListenerDefinition, delivery: DeliveryRequest, message: string): ConsumerAcknowledgement {
    this.logger.warn(
      `${listener.where} refused message ${delivery.id} from ${delivery.topic}; the broker dead-letters it: ${message}`,
    );
    return { acknowledgement: Acknowledgement.NACK, retry: false, message };
  }
}
