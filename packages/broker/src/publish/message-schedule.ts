import { InvalidMessageError, type MessageProperties } from '@mmmq/core';

/**
 * When each message of a publish becomes deliverable, as an offset from the publish time: its `delayMs`, or its
 * `deliverAt` less `now`; undefined for one that is not scheduled (or whose time has passed, or `delayMs` 0).
 * Checked before anything of the publish is stored or created, so a refused batch changes nothing.
 *
 * @throws InvalidMessageError (400) naming the message in a batch: scheduled further than `maxDelayMs` ahead, or an
 *   `expiresAt` not after its due time (it could never be delivered)
 */
export function scheduleOf(
  messages: ReadonlyArray<Pick<MessageProperties, 'delayMs' | 'deliverAt' | 'expiresAt'>>,
  now: number,
  maxDelayMs: number,
): Array<number | undefined> {
  let delays: Array<number | undefined> | undefined;
  messages.forEach((message, index) => {
    if (message.delayMs === undefined && message.deliverAt === undefined) return;
    const delay = message.delayMs ?? Date.parse(message.deliverAt!) - now;
    const where = messages.length > 1 ? `messages[${index}]: ` : '';
    const field = message.delayMs === undefined ? `"deliverAt" (${message.deliverAt})` : `"delayMs" (${message.delayMs})`;
    if (delay > maxDelayMs) {
      throw new InvalidMessageError(
        `${where}Message field ${field} is further ahead than the broker's limits.maxDelayMs (${maxDelayMs} ms)`,
      );
    }
    if (message.expiresAt !== undefined && message.expiresAt <= now + Math.max(0, delay)) {
      throw new InvalidMessageError(
        `${where}Message field "expiresAt" (${message.expiresAt}) is not after its ${field}: it could never be delivered`,
      );
    }
    delays ??= new Array<number | undefined>(messages.length);
    if (delay > 0) delays[index] = delay;
  });
  return delays ?? NO_DELAYS;
}

const NO_DELAYS: Array<number | undefined> = [];
