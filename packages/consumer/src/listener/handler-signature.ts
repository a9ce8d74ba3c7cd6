import { InvalidListenerError } from '../errors/invalid-listener.error';
import { ContentType, contentTypeOf } from './content-type';
import { MessageContext } from './message-context';

/** A handler receives the content and, optionally, the `MessageContext`; nothing else can be supplied. */
export const HANDLER_MAX_PARAMETERS = 2;

const PARAMTYPES = 'design:paramtypes';

/**
 * Checks a handler's parameters and returns what its content must be.
 *
 * TypeScript records parameter types only for decorated methods, so for undecorated ones only the parameter
 * count (`Function.length`) can be checked, and `explicit` (an interface listener's `contentType`) says
 * what the content is.
 * @throws InvalidListenerError naming `where` (`Class.method`)
 */
export function inspectHandler(prototype: object, methodName: string, method: Function, where: string, explicit?: unknown): ContentType {
  const recorded = Reflect.getMetadata(PARAMTYPES, prototype, methodName) as unknown[] | undefined;
  const count = Math.max(recorded?.length ?? 0, method.length);
  if (count > HANDLER_MAX_PARAMETERS) {
    throw new InvalidListenerError(
      `${where} declares ${count} parameters, but a listener receives only the content and, optionally, the ` +
        `MessageContext: remove the extra parameters or split the work into two listeners`,
    );
  }
  if (recorded?.[0] === MessageContext) {
    throw new InvalidListenerError(
      `${where} takes MessageContext as its first parameter; the first parameter receives the content, so ` +
        `declare (content, context: MessageContext)`,
    );
  }
  if (recorded !== undefined && recorded.length === HANDLER_MAX_PARAMETERS && recorded[1] !== MessageContext) {
    throw new InvalidListenerError(
      `${where} has a second parameter of type ${nameOf(recorded[1])}, but the second parameter can only be ` +
        `the MessageContext; a listener receives exactly one content value`,
    );
  }
  if (explicit !== undefined && typeof explicit !== 'function') {
    throw new InvalidListenerError(`${where}: contentType must be a class, got ${typeof explicit}`);
  }
  return contentTypeOf(explicit ?? recorded?.[0]);
}

function nameOf(type: unknown): string {
  return typeof type === 'function' && type.name ? type.name : 'Object';
}
