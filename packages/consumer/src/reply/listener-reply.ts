import { type Reply, replyAddressOf, replyErrorOf } from '@mmmq/core';
import { isObservable, lastValueFrom } from 'rxjs';
import type { ConsumerDelivery } from '../listener/consumer-delivery';

/** Where the reply to `delivery` goes: its reply headers, when it is a request. */
export function replyAddress(delivery: ConsumerDelivery): { inbox: string; correlationId: string } | undefined {
  return replyAddressOf(delivery.headers);
}

/**
 * The reply carrying a handler's result: what it returned, resolved, or emitted last; as JSON, the way a remote
 * requester reads it, so that a requester of the same process gets the same value. A result that is not JSON
 * (a BigInt, a cycle) is an error reply.
 */
export async function resultReply(address: { inbox: string; correlationId: string }, result: unknown): Promise<Reply> {
  let value = result;
  try {
    if (isObservable(value)) value = await lastValueFrom(value, { defaultValue: undefined });
    const text = JSON.stringify(value);
    return text === undefined ? { ...address } : { ...address, content: JSON.parse(text) as unknown };
  } catch (error) {
    return errorReply(address, error);
  }
}

/** The reply carrying a handler's error: its name and message, never its stack. */
export function errorReply(address: { inbox: string; correlationId: string }, error: unknown): Reply {
  return { ...address, error: replyErrorOf(error) };
}
