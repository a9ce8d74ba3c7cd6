import { contentTypeOf } from '@mmmq/consumer/internal';
import type { AsyncApiPayload } from '@mmmq/core/internal';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { MetadataScanner } from '@nestjs/core';
import { PATTERN_HANDLER_METADATA, PATTERN_METADATA, TRANSPORT_METADATA } from '@nestjs/microservices/constants';
import { PatternHandler } from '@nestjs/microservices/enums/pattern-handler.enum';
import { RpcParamtype } from '@nestjs/microservices/enums/rpc-paramtype.enum';
import { MMMQ_TRANSPORT } from '../mmmq-transport';

/** A string pattern's handler as its controller declares it. */
export interface DeclaredPatternHandler {
  /** `@EventPattern` (true) or `@MessagePattern` (false). */
  event: boolean;
  payload: AsyncApiPayload;
}

/**
 * The string patterns the controllers declare, as Nest registers them with a strategy, and the content type each
 * handler declares: the parameter `@Payload()` binds as a whole (or, undecorated, the first), with the type TypeScript
 * recorded for it, so `@EventPattern('order.placed') onPlaced(@Payload() order: PlaceOrder)` gives `PlaceOrder`.
 * Handlers bound to another transport (`@EventPattern(pattern, Transport.KAFKA)`) are skipped; of two handlers of one
 * pattern, the first declared type wins.
 */
export function scanPatternHandlers(controllers: readonly object[]): Map<string, DeclaredPatternHandler> {
  const scanner = new MetadataScanner();
  const handlers = new Map<string, DeclaredPatternHandler>();
  for (const controller of controllers) {
    const prototype = Object.getPrototypeOf(controller) as object;
    for (const name of scanner.getAllMethodNames(prototype)) {
      const method = (prototype as Record<string, unknown>)[name] as object;
      const patterns = Reflect.getMetadata(PATTERN_METADATA, method) as unknown[] | undefined;
      const transport = Reflect.getMetadata(TRANSPORT_METADATA, method) as unknown;
      if (patterns === undefined || (transport !== undefined && transport !== MMMQ_TRANSPORT)) continue;
      const event = Reflect.getMetadata(PATTERN_HANDLER_METADATA, method) === PatternHandler.EVENT;
      const payload = declaredPayload(prototype, name);
      for (const pattern of patterns) {
        if (typeof pattern !== 'string') continue;
        const known = handlers.get(pattern);
        if (known === undefined || known.payload.kind === 'any') handlers.set(pattern, { event, payload });
      }
    }
  }
  return handlers;
}

function declaredPayload(prototype: object, methodName: string): AsyncApiPayload {
  const recorded = Reflect.getMetadata('design:paramtypes', prototype, methodName) as unknown[] | undefined;
  const params = Reflect.getMetadata(ROUTE_ARGS_METADATA, prototype.constructor, methodName) as
    Record<string, { index: number; data?: unknown }> | undefined;
  if (params === undefined || Object.keys(params).length === 0) return contentTypeOf(recorded?.[0]);
  const whole = Object.entries(params).find(
    ([key, param]) => key.split(':')[0] === String(RpcParamtype.PAYLOAD) && param.data === undefined,
  );
  return whole === undefined ? { kind: 'any' } : contentTypeOf(recorded?.[whole[1].index]);
}
