import { createHash } from 'node:crypto';
import { type ConsumerAcknowledgement, SHARED_MESSAGES_PATH, SharedSettlementParser } from '@mmmq/core';
import { DeliveryFailedError, PushTooLargeError } from './push.errors';
import type { PushOrder } from './push-order';
import { STREAMED } from './streamed-reply';

/** A shared push stops growing at this many bytes of body (a single window larger still goes, alone). */
export const SHARED_PUSH_MAX_BYTES = 4 * 1024 * 1024;
/** …and at this many messages, so that its reply stays well within the reply cap. */
export const SHARED_PUSH_MAX_MESSAGES = 5_000;
const HTTP_NOT_FOUND = 404;
const HTTP_SERVICE_UNAVAILABLE = 503;

/** One subscription's window, to travel in a shared push. */
export interface SharedWindow {
  consumerId: string;
  topic: string;
  /** Delivery bodies, in offset order. */
  bodies: Buffer[];
  /** The window's `webhook-id` (push-id.ts): the shared push's id is made of its windows' ids. */
  id: string;
  order?: PushOrder;
  extendedUntil: () => number;
}

/**
 * The consumer refused a window of a shared push with 404: no listener there takes pushes for its consumer id (another
 * module of the application does), or the consumer serves no shared pushes at all. No handler saw it; that
 * subscription pushes on its own from then on.
 */
export class SharedPushRefusedError extends DeliveryFailedError {
  override reachedConsumer = false;
}

/** Sends one shared push: resolves with {@link STREAMED} once the reply, fed to `parser`, ended. */
export type SharedPost = (
  body: Buffer,
  id: string,
  extendedUntil: () => number,
  parser: SharedSettlementParser,
  signal: AbortSignal,
) => Promise<unknown>;

/** A window waiting for, or travelling in, a shared push. */
interface Part {
  window: SharedWindow;
  signal: AbortSignal;
  onSettled: (index: number, acknowledgement: ConsumerAcknowledgement) => void;
  resolve: (acknowledgements: ConsumerAcknowledgement[]) => void;
  reject: (error: Error) => void;
  acknowledgements: ConsumerAcknowledgement[];
  settled: number;
  done: boolean;
  /** In a request already: it may have reached a handler. */
  sent: boolean;
  bytes: number;
}

/**
 * The shared pushes to one consumer host (one URL, one signing secret): the windows its subscriptions hand over within
 * one turn of the event loop travel in one request, `{"parts":[…]}`, answered line by line (docs/http-api.md, "Shared
 * pushes"). Each window is settled as its lines arrive and resolves once every message of it has one, whatever the
 * other parts: its subscription's push member goes on at once. A request that fails fails the windows it had not
 * settled, each with the error a push of that window alone would have got; a 413 of several windows sends each again
 * alone at once (no delivery, no backoff), and the lane stays below the refused size from then on.
 */
export class SharedPushLane {
  private pending: Part[] = [];
  private flushing?: NodeJS.Immediate;
  /** The smallest shared push the consumer refused as too large. */
  private refusedBytes = Infinity;

  constructor(
    private readonly post: SharedPost,
    private readonly url: string,
    /** The consumer does not serve shared pushes (any more): its subscriptions push on their own. */
    private readonly unsupported: () => void,
  ) {}

  /** Sends `window` in the next shared push; resolves with its acknowledgements (`onSettled` hears each as it comes). */
  send(
    window: SharedWindow,
    signal: AbortSignal,
    onSettled: (index: number, acknowledgement: ConsumerAcknowledgement) => void,
  ): Promise<ConsumerAcknowledgement[]> {
    return new Promise((resolve, reject) => {
      const bytes = window.bodies.reduce((sum, body) => sum + body.length + 1, 0) + 160;
      if (signal.aborted) return reject(this.aborted(false));
      // The member's signal outlives the part (it serves every push of a run): the listener goes when the part does.
      const onAbort = () => this.finish(part, this.aborted(part.sent));
      const done = () => signal.removeEventListener('abort', onAbort);
      const part: Part = {
        window,
        signal,
        onSettled,
        resolve: (acknowledgements) => {
          done();
          resolve(acknowledgements);
        },
        reject: (error) => {
          done();
          reject(error);
        },
        acknowledgements: [],
        settled: 0,
        done: false,
        sent: false,
        bytes,
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.push(part);
      this.flushing ??= setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    this.flushing = undefined;
    const parts = this.pending.filter((part) => !part.done);
    this.pending = [];
    const maxBytes = Math.min(SHARED_PUSH_MAX_BYTES, this.refusedBytes - 1);
    let request: Part[] = [];
    let bytes = 0;
    let messages = 0;
    for (const part of parts) {
      const count = part.window.bodies.length;
      if (request.length > 0 && (bytes + part.bytes > maxBytes || messages + count > SHARED_PUSH_MAX_MESSAGES)) {
        this.request(request);
        request = [];
        bytes = 0;
        messages = 0;
      }
      request.push(part);
      bytes += part.bytes;
      messages += count;
    }
    if (request.length > 0) this.request(request);
  }

  private request(parts: Part[]): void {
    for (const part of parts) part.sent = true;
    const body = encodeShared(parts.map((part) => part.window));
    const id = parts.length === 1 ? parts[0].window.id : sharedIdOf(parts);
    const extendedUntil = () => Math.max(...parts.map((part) => part.window.extendedUntil()));
    const parser = new SharedSettlementParser(
      parts.map((part) => part.window.bodies.length),
      {
        settled: (i, index, acknowledgement) => this.settled(parts[i], index, acknowledgement),
        refused: (i, status, message) => this.finish(parts[i], this.refusal(parts[i], status, message)),
      },
    );
    // Cut off once every window of it has gone: all settled, or their members stopped waiting.
    const cutOff = new AbortController();
    const abandoned = () => parts.every((part) => part.done) && cutOff.abort();
    for (const part of parts) part.signal.addEventListener('abort', abandoned, { once: true });
    this.post(body, id, extendedUntil, parser, cutOff.signal)
      .then(
        (reply) => {
          if (reply !== STREAMED) return this.failAll(parts, this.failure('the consumer answered a shared push without a streamed reply'));
          try {
            parser.end();
          } catch (error) {
            return this.failAll(parts, this.failure((error as Error).message, error));
          }
          for (const part of parts) {
            const { length } = part.window.bodies;
            if (!part.done)
              this.finish(
                part,
                this.failure(`the shared reply ended with ${length - part.settled} of ${length} messages of ${this.label(part)} unsettled`),
              );
          }
        },
        (error: Error) => this.failed(parts, body.length, error),
      )
      .finally(() => {
        for (const part of parts) part.signal.removeEventListener('abort', abandoned);
      });
  }

  private settled(part: Part, index: number, acknowledgement: ConsumerAcknowledgement): void {
    if (part.done) return;
    part.acknowledgements[index] = acknowledgement;
    part.onSettled(index, acknowledgement);
    if (++part.settled === part.window.bodies.length) {
      part.done = true;
      part.resolve(part.acknowledgements);
    }
  }

  private failed(parts: Part[], bytes: number, error: Error): void {
    if (error instanceof PushTooLargeError && parts.length > 1) {
      // No handler saw it: each window goes again alone, now, and no shared push grows this large again.
      this.refusedBytes = Math.min(this.refusedBytes, bytes);
      for (const part of parts) if (!part.done) this.request([part]);
      return;
    }
    if (error instanceof DeliveryFailedError && error.status === HTTP_NOT_FOUND) {
      // The consumer does not serve shared pushes after all (an older version restarted at the same URL).
      this.unsupported();
      return this.failAll(parts, new SharedPushRefusedError(error.message, { cause: error }));
    }
    this.failAll(parts, error);
  }

  private failAll(parts: Part[], error: Error): void {
    for (const part of parts) this.finish(part, error);
  }

  private finish(part: Part, error: Error): void {
    if (part.done) return;
    part.done = true;
    part.reject(error);
  }

  /** A window the consumer refused whole, as the error its push alone would have ended with. */
  private refusal(part: Part, status: number, message: string): DeliveryFailedError {
    const why = `HTTP ${status} for ${this.label(part)}${message === '' ? '' : `: ${message}`}`;
    if (status === HTTP_NOT_FOUND) return new SharedPushRefusedError(this.describe(why));
    const error = new DeliveryFailedError(this.describe(why));
    error.reachedConsumer = status !== HTTP_SERVICE_UNAVAILABLE;
    return error;
  }

  private failure(message: string, cause?: unknown): DeliveryFailedError {
    return new DeliveryFailedError(this.describe(message), { cause });
  }

  private aborted(sent: boolean): DeliveryFailedError {
    const error = this.failure('delivery aborted: the subscription is stopping');
    error.reachedConsumer = sent;
    return error;
  }

  private describe(message: string): string {
    return `Shared push to ${this.url}${SHARED_MESSAGES_PATH} failed: ${message}`;
  }

  private label({ window }: Part): string {
    return `${window.consumerId} on ${window.topic}`;
  }
}

/** `{"parts":[{"consumerId","topic","session"?,"sequence"?,"messages":[…]}, …]}` (docs/http-api.md, "Shared pushes"). */
function encodeShared(windows: readonly SharedWindow[]): Buffer {
  const chunks: Buffer[] = [PARTS_OPEN];
  windows.forEach(({ consumerId, topic, order, bodies }, i) => {
    const head =
      `${i > 0 ? ',' : ''}{"consumerId":${JSON.stringify(consumerId)},"topic":${JSON.stringify(topic)}` +
      (order ? `,"session":${JSON.stringify(order.session)},"sequence":${order.sequence}` : '') +
      ',"messages":[';
    chunks.push(Buffer.from(head));
    bodies.forEach((body, j) => {
      if (j > 0) chunks.push(COMMA);
      chunks.push(body);
    });
    chunks.push(PART_CLOSE);
  });
  chunks.push(PARTS_CLOSE);
  return Buffer.concat(chunks);
}

/** The `webhook-id` of a shared push: the same for the same windows, different for any other set. */
function sharedIdOf(parts: readonly Part[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part.window.id).update('\n');
  return `shared:${hash.digest('hex').slice(0, 32)}`;
}

const PARTS_OPEN = Buffer.from('{"parts":[');
const COMMA = Buffer.from(',');
const PART_CLOSE = Buffer.from(']}');
const PARTS_CLOSE = Buffer.from(']}');
