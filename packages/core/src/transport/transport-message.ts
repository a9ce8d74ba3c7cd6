import type { DeliveryMode } from '../delivery-mode';
import type { MessageHeaders } from '../message';
import type { MessageProperties } from '../message-properties';

/**
 * A message ready to send through a transport: validated, its id fixed and its content serialised once, before the
 * first attempt, so that every retry sends the same id and the same bytes.
 */
export interface TransportMessage extends MessageProperties {
  id: string;
  topic: string;
  headers: MessageHeaders | undefined;
  /** The content as JSON text. */
  content: string;
  /** Absent: the transport's (or the topic's) default. */
  deliveryMode: DeliveryMode | undefined;
}
