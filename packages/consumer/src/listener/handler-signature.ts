import { InvalidListenerError } from '../errors/invalid-listener.error';
import { ContentType, contentTypeOf } from './content-type';
import { getListenerParams, ListenerParams, MmmqParamtype, paramtypeOf, recordedParamTypes, withImplicitContext } from './listener-params';
import { MessageContext } from './message-context';

/** A handler receives the content and, optionally, the `MessageContext`; nothing else can be supplied. */
export const HANDLER_MAX_PARAMETERS = 2;

/**
 * Checks a handler's parameters and returns what its content must be: positional `(content, context)`, or
 * every parameter decorated (`@Payload()`, `@Ctx()`, or a custom parameter decorator) except those declared
 * `MessageContext`, which receive the context.
 *
 * TypeScript records parameter types only for decorated methods (a method decorator, or a parameter decorator
 * such as `@Payload()`), so for undecorated ones only the parameter count (`Function.length`) can be checked,
 * and `explicit` (a class listener's `contentType`) says what the content is.
 * @throws InvalidListenerError naming `where` (`Class.method`)
 */
export function inspectHandler(prototype: object, methodName: string, method: Function, where: string, explicit?: unknown): ContentType {
  const recorded = recordedParamTypes(prototype, methodName);
  const params = getListenerParams(prototype, methodName);
  const declared =
    params === undefined
      ? inspectPositional(recorded, method, where)
      : inspectDecorated(withImplicitContext(params, recorded), recorded, method, where);
  if (explicit !== undefined && typeof explicit !== 'function') {
    throw new InvalidListenerError(`${where}: contentType must be a class, got ${typeof explicit}`);
  }
  return contentTypeOf(explicit ?? declared);
}

function inspectPositional(recorded: unknown[] | undefined, method: Function, where: string): unknown {
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
  return recorded?.[0];
}

/** The declared type of the whole content is that of the `@Payload()` parameter without a property key. */
function inspectDecorated(params: ListenerParams, recorded: unknown[] | undefined, method: Function, where: string): unknown {
  const byIndex = new Map(Object.entries(params).map(([key, param]) => [param.index, paramtypeOf(key)]));
  const count = Math.max(recorded?.length ?? 0, method.length);
  for (let index = 0; index < count; index++) {
    const type = recorded?.[index];
    if (!byIndex.has(index)) {
      const declaredAs = type === undefined ? '' : ` (${nameOf(type)})`;
      throw new InvalidListenerError(
        `${where}: parameter ${index + 1}${declaredAs} has no parameter decorator, so it would receive undefined; once one ` +
          `parameter uses @Payload() or @Ctx(), every parameter needs one: decorate it with @Payload() for the content ` +
          `or @Ctx() for the MessageContext (a parameter declared MessageContext needs none)`,
      );
    }
    if (byIndex.get(index) === MmmqParamtype.CONTEXT && type !== undefined && type !== MessageContext && type !== Object) {
      throw new InvalidListenerError(`${where}: the @Ctx() parameter ${index + 1} must be typed MessageContext, not ${nameOf(type)}`);
    }
  }
  const whole = Object.values(params).find(
    (param, i) => paramtypeOf(Object.keys(params)[i]) === MmmqParamtype.PAYLOAD && param.data === undefined,
  );
  return whole === undefined ? undefined : recorded?.[whole.index];
}

function nameOf(type: unknown): string {
  return typeof type === 'function' && type.name ? type.name : 'Object';
}
