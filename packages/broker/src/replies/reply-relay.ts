import { type Reply, ReplyInboxes } from '@mmmq/core';
import { Injectable, OnModuleDestroy } from '@nestjs/common';

/** An inbox nobody collected from for this long is forgotten, with the replies it held. */
export const REPLY_INBOX_IDLE_MS = 60_000;
/** Replies one inbox holds at most; beyond that a reply is dropped (the requester is not collecting). */
export const REPLY_INBOX_MAX_REPLIES = 10_000;
/** Inboxes the broker keeps at most; beyond that a reply to a new inbox is dropped. */
export const REPLY_INBOXES_MAX = 10_000;
/** Bytes (as JSON) of all the replies held, at most; beyond that a reply is dropped, so replies cannot exhaust memory. */
export const REPLY_RELAY_MAX_BYTES = 64 * 1024 * 1024;
/** The longest a collection waits for a first reply. */
export const REPLY_FETCH_MAX_WAIT_MS = 60_000;

interface Held {
  reply: Reply;
  bytes: number;
}

interface Inbox {
  replies: Held[];
  /** The collection waiting for a first reply, if any. */
  waiter?: (replies: Reply[]) => void;
  touchedAt: number;
}

/**
 * The broker's reply relay: replies of listeners to requesters in other processes, held in memory until their
 * requester collects them (a long poll). Nothing of it is written to disk: a reply is worth something only to the
 * request still waiting for it, so it is not a message of a topic (no topic to pile up, no fsync per reply), and it
 * is lost with the broker, as the requester's promise would be with the requester. A requester of the broker's own
 * process gets its replies directly. An inbox lives while it is collected from, then {@link REPLY_INBOX_IDLE_MS}.
 */
@Injectable()
export class ReplyRelay implements OnModuleDestroy {
  private readonly inboxes = new Map<string, Inbox>();
  private readonly sweeper: NodeJS.Timeout;
  private dropped = 0;
  private heldBytes = 0;

  constructor() {
    this.sweeper = setInterval(() => this.sweep(), REPLY_INBOX_IDLE_MS / 2).unref();
  }

  /** Replies dropped so far: their inbox was full, too many inboxes were open, the relay held its byte limit, or nobody collected them. */
  get droppedReplies(): number {
    return this.dropped;
  }

  /** True while a collection waits on inbox `name`. */
  collecting(name: string): boolean {
    return this.inboxes.get(name)?.waiter !== undefined;
  }

  /**
   * Hands `reply` to its requester: directly in this process, else into its inbox (opened if the requester has not
   * collected yet: its first collection may reach the broker after the reply). False when it had to be dropped.
   */
  relay(reply: Reply): boolean {
    if (ReplyInboxes.deliver(reply)) return true;
    let inbox = this.inboxes.get(reply.inbox);
    if (inbox === undefined) {
      if (this.inboxes.size >= REPLY_INBOXES_MAX) return this.drop();
      inbox = { replies: [], touchedAt: Date.now() };
      this.inboxes.set(reply.inbox, inbox);
    }
    if (inbox.waiter !== undefined) {
      const waiter = inbox.waiter;
      inbox.waiter = undefined;
      waiter([reply]);
      return true;
    }
    const bytes = Buffer.byteLength(JSON.stringify(reply));
    if (inbox.replies.length >= REPLY_INBOX_MAX_REPLIES || this.heldBytes + bytes > REPLY_RELAY_MAX_BYTES) return this.drop();
    inbox.replies.push({ reply, bytes });
    this.heldBytes += bytes;
    return true;
  }

  /** Every reply `inbox` holds, waiting up to `waitMs` for a first one; `[]` when none came or `signal` aborted. */
  collect(name: string, waitMs: number, signal: AbortSignal): Promise<Reply[]> {
    let inbox = this.inboxes.get(name);
    if (inbox === undefined) {
      inbox = { replies: [], touchedAt: Date.now() };
      this.inboxes.set(name, inbox);
    }
    inbox.touchedAt = Date.now();
    if (inbox.replies.length > 0 || waitMs === 0 || signal.aborted) return Promise.resolve(this.take(inbox));
    // A second collector of one inbox replaces the first, which gets nothing: one requester owns an inbox.
    inbox.waiter?.([]);
    const owner = inbox;
    return new Promise((resolve) => {
      const done = (replies: Reply[]) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', abandon);
        owner.touchedAt = Date.now();
        resolve(replies);
      };
      const abandon = () => {
        if (owner.waiter === done) owner.waiter = undefined;
        done([]);
      };
      const timer = setTimeout(abandon, waitMs);
      signal.addEventListener('abort', abandon, { once: true });
      owner.waiter = done;
    });
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
    for (const inbox of this.inboxes.values()) inbox.waiter?.([]);
    this.inboxes.clear();
    this.heldBytes = 0;
  }

  /** Every reply `inbox` holds, no longer held. */
  private take(inbox: Inbox): Reply[] {
    const held = inbox.replies.splice(0);
    for (const { bytes } of held) this.heldBytes -= bytes;
    return held.map(({ reply }) => reply);
  }

  private sweep(): void {
    const before = Date.now() - REPLY_INBOX_IDLE_MS;
    for (const [name, inbox] of this.inboxes) {
      if (inbox.waiter === undefined && inbox.touchedAt < before) {
        this.dropped += this.take(inbox).length;
        this.inboxes.delete(name);
      }
    }
  }

  private drop(): false {
    this.dropped++;
    return false;
  }
}
