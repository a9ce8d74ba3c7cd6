import { parseDispatcherDefinition } from '../dispatch/dispatcher-definition';
import type { Principal } from '../security/principal';

/**
 * Checks a dispatcher definition from `POST` / `PUT /mmmq/dispatchers` against the token that sent it, before
 * anything changes: the consumer id must be one the token may act for, and a pattern naming the broker's own
 * topics (`__dlq.*`, `__redrive.*`) needs the admin role. A body that is not a valid definition is left for the
 * {@link Dispatcher} service to refuse (400) with its usual message.
 *
 * @param consumerId the path's, for a `PUT` (already checked by the guard; the body may omit it)
 * @throws AccessDeniedError (403)
 */
export function assertMayRegister(caller: Principal, body: unknown, consumerId?: string): void {
  const input = consumerId !== undefined && isRecord(body) ? { ...body, consumerId } : body;
  let definition;
  try {
    definition = parseDispatcherDefinition(input, 'dispatcher');
  } catch {
    // The service parses the same input and refuses it the same way: nothing is registered.
    return;
  }
  caller.assertMayActFor(definition.consumerId);
  caller.assertMaySubscribe(definition.patterns);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
