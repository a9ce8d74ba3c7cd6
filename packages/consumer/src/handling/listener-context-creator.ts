import { Injectable } from '@nestjs/common';
import { ExternalContextCreator } from '@nestjs/core';
import { isObservable, lastValueFrom } from 'rxjs';
import { LISTENER_PARAMS_METADATA, useImplicitParams } from '../listener/listener-params';
import { containerOf, ExecutionContextHost, ExternalExceptionFilterContext, ExternalExceptionsHandler } from '../support/nest-internals';
import { MmmqParamsFactory } from './mmmq-params.factory';

/** What `host.getType()` and `ExecutionContext.getType()` say inside a listener's pipes, guards, interceptors and filters. */
export const MMMQ_CONTEXT_TYPE = 'mmmq';
export type MmmqContextType = typeof MMMQ_CONTEXT_TYPE;

/** A listener method wrapped in its Nest enhancers; called with the converted content and the `MessageContext`. */
export type ListenerCall = (content: unknown, context: unknown) => Promise<unknown>;

/**
 * Runs listener methods as Nest runs `@MessagePattern` handlers, through `ExternalContextCreator`: global,
 * class and method pipes, guards, interceptors and exception filters apply, in context type `'mmmq'`.
 *
 * Exception filters run here rather than in Nest's external error proxy, which logs every exception no filter
 * caught as an ERROR before rethrowing it: the invoker logs each outcome itself, saying what the broker does next,
 * and a refusal by a pipe or guard is a verdict on the message, not an application error.
 */
@Injectable()
export class ListenerContextCreator {
  private readonly params = new MmmqParamsFactory();
  private readonly filters: ExternalExceptionFilterContext | undefined;

  constructor(private readonly creator: ExternalContextCreator) {
    // Without the container (a future Nest), Nest's own error proxy applies the filters instead, with its log line.
    const container = containerOf(creator);
    this.filters = container ? new ExternalExceptionFilterContext(container, container.applicationConfig!) : undefined;
  }

  create(instance: object, method: Function, methodName: string): ListenerCall {
    const classRef = instance.constructor;
    useImplicitParams(Object.getPrototypeOf(instance) as object, methodName);
    const run = this.creator.create(
      instance,
      method as (...args: unknown[]) => unknown,
      methodName,
      LISTENER_PARAMS_METADATA,
      this.params,
      undefined,
      undefined,
      { guards: true, interceptors: true, filters: this.filters === undefined },
      MMMQ_CONTEXT_TYPE,
    );
    if (this.filters === undefined) return (content, context) => run(content, context);
    const filters = this.filters.create(instance, method as never, this.creator.getContextModuleKey(classRef));
    return async (content, context) => {
      try {
        return await run(content, context);
      } catch (error) {
        return applyFilters(filters, error, [content, context], classRef, method);
      }
    };
  }
}

/**
 * What the filter that catches `error` returns (or resolves or emits last) is the handler's result. No filter, or a
 * filter that returns nothing (any falsy value, as Nest's `ExternalExceptionsHandler` treats it): rethrown, so a
 * filter that only logs does not turn a failure into an acknowledgement.
 */
async function applyFilters(filters: ExternalExceptionsHandler, error: unknown, args: unknown[], classRef: Function, method: Function) {
  const host = new ExecutionContextHost(args, classRef as never, method);
  host.setType(MMMQ_CONTEXT_TYPE);
  const handled: unknown = filters.invokeCustomFilters(error, host);
  if (!handled) throw error;
  return isObservable(handled) ? lastValueFrom(handled, { defaultValue: undefined }) : handled;
}
