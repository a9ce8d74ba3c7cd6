import type { Reply } from '@mmmq/core';

/**
 * Where the replies that consumers carry in their push acknowledgements go (`reply`, docs/http-api.md § Replies in
 * the settlement): the broker's reply relay, provided by the module (replies/ sits above dispatch/).
 */
export interface PushedReplies {
  /** Hands `reply` to its requester; false when it was dropped (its inbox is full or gone). */
  relay(reply: Reply): boolean;
}

export const PUSHED_REPLIES = Symbol('PUSHED_REPLIES');
