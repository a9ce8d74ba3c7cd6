import type { Reply } from '@mmmq/core';
import { ReplyError, RequestCancelledError, type RequestIdentity, RequestTimeoutError } from '../errors/request.errors';

interface Pending {
  request: RequestIdentity;
  resolve(content: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** What became of the replies an inbox received. */
export interface ReplyStats {
  /** Requests waiting for their reply now. */
  pending: number;
  /** Replies that answered a waiting request. */
  answered: number;
  /** Replies dropped: their request had timed out, been cancelled, or been answered already (a redelivered request). */
  late: number;
}

/** The requests of one inbox waiting for their replies, by correlation id. */
export class PendingRequests {
  private readonly pending = new Map<string, Pending>();
  private answered = 0;
  private late = 0;

  /** Waits for the reply to `request`, rejecting with a `RequestTimeoutError` after `timeoutMs`. */
  expect(request: RequestIdentity, timeoutMs: number, onSettled: () => void): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const settle = (outcome: () => void) => {
        clearTimeout(entry.timer);
        this.pending.delete(request.correlationId);
        outcome();
        onSettled();
      };
      const entry: Pending = {
        request,
        resolve: (content) => settle(() => resolve(content)),
        reject: (error) => settle(() => reject(error)),
        timer: setTimeout(() => entry.reject(new RequestTimeoutError(request, timeoutMs)), timeoutMs),
      };
      this.pending.set(request.correlationId, entry);
    });
  }

  /** Answers the request `reply` is for; a reply for no waiting request is counted as late and dropped. */
  receive(reply: Reply): void {
    const entry = this.pending.get(reply.correlationId);
    if (entry === undefined) {
      this.late++;
      return;
    }
    this.answered++;
    if (reply.error === undefined) entry.resolve(reply.content);
    else entry.reject(new ReplyError(entry.request, reply.error.name, reply.error.message, reply.error.data));
  }

  /** Stops waiting for `correlationId` without settling its promise (its publish failed; the caller gets that error). */
  forget(correlationId: string): void {
    const entry = this.pending.get(correlationId);
    if (entry === undefined) return;
    clearTimeout(entry.timer);
    this.pending.delete(correlationId);
  }

  /** Rejects every waiting request with a `RequestCancelledError`, or with what `error` makes for it. */
  cancelAll(error: (request: RequestIdentity) => Error = (request) => new RequestCancelledError(request)): void {
    for (const entry of [...this.pending.values()]) entry.reject(error(entry.request));
  }

  get size(): number {
    return this.pending.size;
  }

  stats(): ReplyStats {
    return { pending: this.pending.size, answered: this.answered, late: this.late };
  }
}
