import type { PipeTransform, Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '../support/nest-internals';
import { MessageContext } from './message-context';

/**
 * What `@Payload()` and `@Ctx()` bind a parameter to. The numbers are those of `@nestjs/microservices`
 * (`RpcParamtype`): Nest hands pipes `3` as `'body'` and `6` as `'custom'`, so a global `ValidationPipe`
 * validates the content and leaves the `MessageContext` alone, as it does for `@MessagePattern` handlers.
 */
export enum MmmqParamtype {
  PAYLOAD = 3,
  CONTEXT = 6,
}

/** One decorated parameter, in Nest's format (`{ "3:0": { index, data, pipes } }`). */
export interface ListenerParam {
  index: number;
  data?: string;
  pipes: Array<Type<PipeTransform> | PipeTransform>;
}

/**
 * Stored under Nest's own route-arguments key, as `@nestjs/microservices` does, so that Nest's scanner registers
 * pipe classes given to `@Payload(SomePipe)` as injectables of the listener's module (and so can build them).
 */
export const LISTENER_PARAMS_METADATA = ROUTE_ARGS_METADATA;

export type ListenerParams = Record<string, ListenerParam>;

const PARAMTYPES_METADATA = 'design:paramtypes';

/** A handler without parameter decorators reads as `(@Payload() content, @Ctx() context)`, so pipes reach its content. */
const POSITIONAL_PARAMS: ListenerParams = {
  [`${MmmqParamtype.PAYLOAD}:0`]: { index: 0, pipes: [] },
  [`${MmmqParamtype.CONTEXT}:1`]: { index: 1, pipes: [] },
};

/** The parameter decorators of `methodName` (on the class that declares it), or undefined if it has none. */
export function getListenerParams(prototype: object, methodName: string): ListenerParams | undefined {
  const params = Reflect.getMetadata(LISTENER_PARAMS_METADATA, prototype.constructor, methodName) as ListenerParams | undefined;
  return params !== undefined && params !== POSITIONAL_PARAMS && Object.keys(params).length > 0 ? params : undefined;
}

/**
 * Gives a handler the metadata Nest's context creator reads parameters from: the positional reading of an
 * undecorated one, or the implicit `@Ctx()` of a decorated one. It is stored on the class because that is the only
 * place Nest reads it; {@link getListenerParams} still reports a positional handler as undecorated.
 */
export function useImplicitParams(prototype: object, methodName: string): void {
  const params = getListenerParams(prototype, methodName);
  const all = params === undefined ? POSITIONAL_PARAMS : withImplicitContext(params, recordedParamTypes(prototype, methodName));
  if (all !== params) Reflect.defineMetadata(LISTENER_PARAMS_METADATA, all, prototype.constructor, methodName);
}

/**
 * `params` plus an `@Ctx()` for each undecorated parameter declared `MessageContext`: its type says what it wants,
 * so `handle(@Payload() order: Order, context: MessageContext)` works as written.
 */
export function withImplicitContext(params: ListenerParams, recorded: readonly unknown[] | undefined): ListenerParams {
  const decorated = new Set(Object.values(params).map((param) => param.index));
  const implicit: ListenerParams = {};
  recorded?.forEach((type, index) => {
    if (type === MessageContext && !decorated.has(index)) implicit[`${MmmqParamtype.CONTEXT}:${index}`] = { index, pipes: [] };
  });
  return Object.keys(implicit).length === 0 ? params : { ...params, ...implicit };
}

/** The parameter types TypeScript recorded (`emitDecoratorMetadata`, only for methods with a decorator). */
export function recordedParamTypes(prototype: object, methodName: string): unknown[] | undefined {
  return Reflect.getMetadata(PARAMTYPES_METADATA, prototype, methodName) as unknown[] | undefined;
}

/** Records one parameter decorator; the key format is the one Nest's context creators read. */
export function addListenerParam(target: object, methodName: string | symbol | undefined, type: MmmqParamtype, param: ListenerParam): void {
  if (methodName === undefined) return;
  const params: ListenerParams = Reflect.getMetadata(LISTENER_PARAMS_METADATA, target.constructor, methodName) ?? {};
  Reflect.defineMetadata(LISTENER_PARAMS_METADATA, { ...params, [`${type}:${param.index}`]: param }, target.constructor, methodName);
}

/** The type (`MmmqParamtype` or another decorator's) recorded for a `"type:index"` key. */
export function paramtypeOf(key: string): number | string {
  const type = key.split(':')[0];
  return /^\d+$/.test(type) ? Number(type) : type;
}
