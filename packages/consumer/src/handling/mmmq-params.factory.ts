import type { ParamData } from '@nestjs/common';
import type { ParamsFactory } from '../support/nest-internals';
import { MmmqParamtype } from '../listener/listener-params';

/**
 * Gives each `@Payload()` / `@Ctx()` parameter its value from a listener call's arguments, `(content, context)`:
 * the same order as `@MessagePattern` handlers, so `switchToRpc().getData()` / `getContext()` work in guards and
 * interceptors written for microservices.
 */
export class MmmqParamsFactory implements ParamsFactory {
  exchangeKeyForValue(type: number, data: ParamData, args: unknown[]): unknown {
    switch (type) {
      case MmmqParamtype.PAYLOAD: {
        const content = args[0];
        if (typeof data !== 'string') return content;
        return typeof content === 'object' && content !== null ? (content as Record<string, unknown>)[data] : undefined;
      }
      case MmmqParamtype.CONTEXT:
        return args[1];
      default:
        // An HTTP decorator (`@Req()`, `@Query()`…) has nothing to read from a message.
        return undefined;
    }
  }
}
