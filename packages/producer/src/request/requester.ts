import { randomUUID } from 'node:crypto';
import { assertMessageId, InvalidMessageError, REPLY_HEADERS } from '@mmmq/core';
import { performance } from 'node:perf_hooks';
import type { ProduceOptions } from '../produce-options';
import type { ProduceObserver, RequestOutcome } from '../produce-observer';
import { ReplyError, RequestCancelledError, RequestReplyUnavailableError, RequestTimeoutError } from '../errors/request.errors';
import { ReplyInbox } from './reply-inbox';
import type { ReplyStats } from './pending-requests';
import { DEFAULT_REQUEST_TIMEOUT_MS, type RequestOptions } from './request-options';
import type { ReplyRoute } from './reply-route';

/** The longest Node timer. */
const MAX_TIMEOUT_MS = 2_147_483_647;

type Publish = (topic: string, content: unknown, options: ProduceOptions) => Promise<unknown>;

/**
 * `producer.request()`: publishes the request with its reply headers through the producer's own `produce()` (same
 * validation, retries, batching), and waits on the producer's reply inbox, opened on the first request.
 */
export class Requester {
  private inbox?: ReplyInbox;
  private closed = false;

  constructor(
    private readonly route: ReplyRoute,
    private readonly publish: Publish,
    private readonly observer?: ProduceObserver,
  ) {}

  async request(topic: string, content: unknown, options: RequestOptions = {}): Promise<unknown> {
    const { timeoutMs = DEFAULT_REQUEST_TIMEOUT_MS, ...produceOptions } = options;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
      throw new InvalidMessageError(`timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}, got ${String(timeoutMs)}`);
    }
    if (this.route.kind === 'unavailable') {
      throw new RequestReplyUnavailableError(
        `Cannot send a request to ${topic}: no reply could reach this producer, since ${this.route.reason}. Nothing was sent.`,
      );
    }
    const id = produceOptions.id ?? randomUUID();
    assertMessageId(id);
    const correlationId = randomUUID();
    const headers = { ...produceOptions.headers, [REPLY_HEADERS.replyTo]: '', [REPLY_HEADERS.correlationId]: correlationId };
    if (this.closed) {
      // produce() refuses with ProducerClosedError, naming the topic; no inbox is opened for it.
      await this.publish(topic, content, { ...produceOptions, id, headers });
    }
    const started = performance.now();
    this.inbox ??= new ReplyInbox(this.route, () => this.observer?.lateReply?.());
    headers[REPLY_HEADERS.replyTo] = this.inbox.name;
    const reply = this.inbox.expect({ topic, id, correlationId }, timeoutMs);
    // The reply (an error reply, a timeout) may settle while the publish is awaited: handled below, not unhandled.
    reply.catch(() => undefined);
    const observe = (outcome: RequestOutcome) => this.observer?.requested?.(topic, outcome, (performance.now() - started) / 1000);
    try {
      await this.publish(topic, content, { ...produceOptions, id, headers });
    } catch (error) {
      this.inbox.forget(correlationId);
      throw error;
    }
    if (this.observer?.requested !== undefined)
      reply.then(
        () => observe('answered'),
        (error: unknown) => observe(outcomeOf(error)),
      );
    return reply;
  }

  stats(): ReplyStats {
    return this.inbox?.stats() ?? { pending: 0, answered: 0, late: 0 };
  }

  close(): void {
    this.closed = true;
    this.inbox?.close();
  }
}

function outcomeOf(error: unknown): RequestOutcome {
  if (error instanceof ReplyError) return 'error';
  if (error instanceof RequestTimeoutError) return 'timeout';
  if (error instanceof RequestCancelledError) return 'cancelled';
  return 'unavailable';
}
