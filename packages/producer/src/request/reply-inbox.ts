import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { type Reply, ReplyInboxes } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { type RequestIdentity, RequestReplyUnavailableError } from '../errors/request.errors';
import { PendingRequests, type ReplyStats } from './pending-requests';
import { REPLY_COLLECT_WAIT_MS, ReplyCollectionRefused, ReplyCollector } from './reply-collector';
import type { ReplyRoute } from './reply-route';

/** First wait after a failed collection; doubled on each further failure up to the maximum. */
const COLLECT_RETRY_MS = 250;
const COLLECT_RETRY_MAX_MS = 5_000;
/**
 * How long collecting goes on after the last request settled, so that a reply coming after its request timed out
 * is received, dropped and counted as late rather than left on the broker.
 */
export const REPLY_COLLECT_LINGER_MS = 30_000;

/**
 * One producer's reply inbox: a random name (the `mmmq-reply-to` of its requests), the requests waiting on it, and,
 * for a producer of a remote broker, the long poll that collects its replies from the broker's relay while any
 * request waits (each collection streams replies as they come). Replies from listeners of this process arrive
 * directly (`ReplyInboxes`).
 */
export class ReplyInbox {
  readonly name = randomUUID();
  private readonly logger = new Logger('MmmqProducer');
  private readonly requests = new PendingRequests();
  private readonly closing = new AbortController();
  private readonly collector?: ReplyCollector;
  private closeLocal?: () => void;
  private collecting = false;
  private lastSettledAt = 0;

  /** @param onLate told of each reply dropped because no request waits for it */
  constructor(
    route: ReplyRoute & { kind: 'local' | 'http' },
    private readonly onLate: () => void = () => undefined,
  ) {
    if (route.kind === 'http') this.collector = new ReplyCollector(route.broker, this.name, route.access);
  }

  /** Waits for the reply to `request`; starts receiving on the first request. */
  expect(request: RequestIdentity, timeoutMs: number): Promise<unknown> {
    this.closeLocal ??= ReplyInboxes.open(this.name, (reply) => this.receive(reply));
    const reply = this.requests.expect(request, timeoutMs, () => (this.lastSettledAt = Date.now()));
    this.startCollecting();
    return reply;
  }

  forget(correlationId: string): void {
    this.requests.forget(correlationId);
  }

  stats(): ReplyStats {
    return this.requests.stats();
  }

  /** Rejects the waiting requests (`RequestCancelledError`), stops collecting. Idempotent. */
  close(): void {
    if (this.closing.signal.aborted) return;
    this.closing.abort();
    this.closeLocal?.();
    this.requests.cancelAll();
    this.collector?.close();
  }

  private receive(reply: Reply): void {
    const before = this.requests.stats().late;
    this.requests.receive(reply);
    if (this.requests.stats().late > before) {
      this.logger.debug(`Dropped a late reply to request ${reply.correlationId}: it is no longer waiting`);
      this.onLate();
    }
  }

  private wanted(): boolean {
    if (this.closing.signal.aborted) return false;
    return this.requests.size > 0 || Date.now() - this.lastSettledAt < REPLY_COLLECT_LINGER_MS;
  }

  /** One long poll at a time, while requests wait and for a while after, for late replies. */
  private startCollecting(): void {
    if (this.collector === undefined || this.collecting) return;
    this.collecting = true;
    void this.collect(this.collector).finally(() => {
      this.collecting = false;
      // A request made while the last poll was ending.
      if (this.wanted()) this.startCollecting();
    });
  }

  private async collect(collector: ReplyCollector): Promise<void> {
    let retryMs = COLLECT_RETRY_MS;
    let failing = false;
    while (this.wanted()) {
      try {
        await collector.collect(REPLY_COLLECT_WAIT_MS, this.closing.signal, (reply) => this.receive(reply));
        retryMs = COLLECT_RETRY_MS;
        failing = false;
      } catch (error) {
        if (this.closing.signal.aborted) return;
        if (error instanceof ReplyCollectionRefused) {
          // A broker without the reply relay (an older one) answers 404: no reply can come, so none is waited for.
          this.requests.cancelAll(
            ({ id, topic }) =>
              new RequestReplyUnavailableError(
                `Request ${id} on ${topic} was published, but its reply cannot be collected from the broker: ${error.message}`,
                { cause: error },
              ),
          );
          return;
        }
        if (!failing)
          this.logger.warn(`Could not collect replies from the broker (inbox ${this.name}): ${(error as Error).message}; retrying`);
        failing = true;
        await delay(retryMs, undefined, { signal: this.closing.signal }).catch(() => undefined);
        retryMs = Math.min(COLLECT_RETRY_MAX_MS, retryMs * 2);
      }
    }
  }
}
