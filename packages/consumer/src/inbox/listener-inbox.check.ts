import type { LoggerService } from '@nestjs/common';
import { InvalidListenerError } from '../errors/invalid-listener.error';
import type { ListenerDefinition } from '../listener/listener-definition';
import type { ResolvedPull } from '../config/resolved-consumer-options';
import type { ListenerInbox } from './listener-inbox';
import { inboxRetentionWarning, knownRedeliveryBounds } from './redelivery-window';

/**
 * Checks the listeners with `inbox: true` against the inbox provided: there must be one, and its retention should
 * exceed the broker's redelivery window (a warning, naming both, when it does not).
 * @throws InvalidListenerError naming the first inbox listener without an inbox provider
 */
export function checkListenerInbox(
  listeners: readonly ListenerDefinition[],
  inbox: ListenerInbox | undefined,
  options: { pull?: Pick<ResolvedPull, 'ackTimeoutMs'> },
  logger: Pick<LoggerService, 'warn'>,
): void {
  const inboxed = listeners.filter((listener) => listener.inbox === true);
  if (inboxed.length === 0) return;
  if (inbox === undefined) {
    throw new InvalidListenerError(
      `${inboxed[0].where} has inbox: true, but no inbox is provided; import MmmqInboxModule.forRoot({...}) from ` +
        `@mmmq/postgres (or provide a ListenerInbox) in the application`,
    );
  }
  const warning = inboxRetentionWarning(inbox.retentionMs, knownRedeliveryBounds(options.pull?.ackTimeoutMs));
  if (warning !== undefined) logger.warn(`${warning} (listeners ${inboxed.map(({ where }) => where).join(', ')})`);
}
