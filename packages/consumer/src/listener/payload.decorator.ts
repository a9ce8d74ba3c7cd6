import type { PipeTransform, Type } from '@nestjs/common';
import { addListenerParam, MmmqParamtype } from './listener-params';

type Pipe = Type<PipeTransform> | PipeTransform;

/**
 * Binds a listener parameter to the message content (after the built-in conversion to the declared class), or
 * to one of its properties with `@Payload('orderId')`, running `pipes` on it after the global and class ones.
 * Decorating a parameter also makes TypeScript record the parameter types, which an `MMMQListener<T>` class's
 * undecorated `handle(order: Order)` does not: `handle(@Payload() order: Order)` is converted to `Order`.
 * @example `@MMMQListener('order.created') onCreated(@Payload() order: OrderCreated, @Ctx() context: MessageContext) {}`
 */
export function Payload(...pipes: Pipe[]): ParameterDecorator;
export function Payload(property: string, ...pipes: Pipe[]): ParameterDecorator;
export function Payload(propertyOrPipe?: string | Pipe, ...pipes: Pipe[]): ParameterDecorator {
  const data = typeof propertyOrPipe === 'string' ? propertyOrPipe : undefined;
  const all = propertyOrPipe === undefined || typeof propertyOrPipe === 'string' ? pipes : [propertyOrPipe, ...pipes];
  return (target, key, index) => addListenerParam(target, key, MmmqParamtype.PAYLOAD, { index, data, pipes: all });
}
