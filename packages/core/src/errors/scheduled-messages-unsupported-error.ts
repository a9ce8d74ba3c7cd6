import type { MessageProperties } from '../message-properties';
import { InvalidMessageError } from './invalid-message-error';

/**
 * A message scheduled for later (`delayMs` / `deliverAt`) was given to a transport that cannot hold it until then
 * (RabbitMQ without its delayed-message plugin, the in-memory test broker): refused, never delivered early.
 */
export class ScheduledMessagesUnsupportedError extends InvalidMessageError {}

/**
 * @throws ScheduledMessagesUnsupportedError naming `transport` when the message is due later than `now` (epoch ms);
 *   `delayMs` 0 and a `deliverAt` already passed mean "at once" and pass
 */
export function refuseScheduled(message: Pick<MessageProperties, 'delayMs' | 'deliverAt'>, transport: string, now = Date.now()): void {
  const later = (message.delayMs ?? 0) > 0 || (message.deliverAt !== undefined && Date.parse(message.deliverAt) > now);
  if (!later) return;
  throw new ScheduledMessagesUnsupportedError(
    `Scheduled messages (delayMs / deliverAt) are not supported by the ${transport}: publish without them, or through the MMMQ broker`,
  );
}
