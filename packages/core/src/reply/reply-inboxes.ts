import type { Reply } from './reply';

type ReplyReceiver = (reply: Reply) => void;

/** One registry per process, whatever copies of this package are loaded: a listener must find a producer's inbox. */
const REGISTRY_KEY = Symbol.for('@mmmq/core:reply-inboxes');

function registry(): Map<string, ReplyReceiver> {
  const holder = globalThis as { [REGISTRY_KEY]?: Map<string, ReplyReceiver> };
  holder[REGISTRY_KEY] ??= new Map();
  return holder[REGISTRY_KEY];
}

/**
 * The reply inboxes of this process's producers. A listener whose requester lives in the same process (the one-app
 * form, or two modules of one test) hands the reply over here, with no broker round trip; any other reply goes
 * through the broker's relay.
 */
export const ReplyInboxes = {
  /** Receives the replies addressed to `inbox` until the returned function is called. */
  open(inbox: string, receive: ReplyReceiver): () => void {
    registry().set(inbox, receive);
    return () => {
      if (registry().get(inbox) === receive) registry().delete(inbox);
    };
  },
  /** Hands `reply` to its inbox if that inbox is in this process; false otherwise. */
  deliver(reply: Reply): boolean {
    const receive = registry().get(reply.inbox);
    if (receive === undefined) return false;
    receive(reply);
    return true;
  },
};
