import { addListenerParam, MmmqParamtype } from './listener-params';

/**
 * Binds a listener parameter to the `MessageContext` (id, topic, headers, offset, delivery count, and the
 * settlement methods of `ackMode: 'manual'`).
 * @example `onCreated(@Payload() order: OrderCreated, @Ctx() context: MessageContext) {}`
 */
export function Ctx(): ParameterDecorator {
  return (target, key, index) => addListenerParam(target, key, MmmqParamtype.CONTEXT, { index, pipes: [] });
}
