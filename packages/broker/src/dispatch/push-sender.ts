import http from 'node:http';
import https from 'node:https';
import {
  BATCH_MESSAGES_PATH,
  BATCH_REPLY_ACCEPT,
  CONSUMER_ID_HEADER,
  ConsumerAcknowledgement,
  isConsumerAcknowledgement,
  MESSAGES_PATH,
  Host,
  PUSH_SEQUENCE_HEADER,
  PUSH_SESSION_HEADER,
  readBoundedReply,
  checkedReply,
  SETTLEMENT_REPLIES_HEADER,
  SETTLEMENT_STREAM_TYPE,
  SettlementStreamParser,
  SHARED_MESSAGES_PATH,
  SHARED_PUSH_HEADER,
  SharedSettlementParser,
  SigningSecret,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from '@mmmq/core';
import { DEFAULT_PUSH_SOCKET_LIMITS, pushAgents, PushSocketLimits, requestMakingRoom } from './push-agents';
import { PushTargetGuard, PushTargetResolver } from './push-target-guard';
import { PushTargetPolicy } from './push-target-policy';
import type { PushedReplies } from './pushed-replies';
import type { PushOrder } from './push-order';
import { DeliveryFailedError, PushTooLargeError, PushUnauthorizedError } from './push.errors';
import { SharedPushLane, type SharedWindow } from './shared-push-lane';
import { isStreamedReply, readStreamedReply, STREAMED, type StreamedReplyParser } from './streamed-reply';

export { DeliveryFailedError, PushTooLargeError, PushUnauthorizedError } from './push.errors';
export type { PushOrder } from './push-order';

/** A push that gets no complete reply within this time counts as failed (and is retried with backoff). */
export const DEFAULT_DELIVERY_TIMEOUT_MS = 30_000;
/**
 * An idle keep-alive connection to a consumer is closed after this long (or sooner when the consumer announces a
 * shorter `Keep-Alive: timeout`, less a second): below Node's default server `keepAliveTimeout` of 5 s, so the
 * broker closes an idle connection before the consumer does. A push written into a connection the consumer is
 * closing fails with a reset that cannot be told from a handler's crash, and so counts as a delivery.
 */
export const PUSH_IDLE_SOCKET_TIMEOUT_MS = 4_000;
const HTTP_SERVICE_UNAVAILABLE = 503;
const HTTP_PAYLOAD_TOO_LARGE = 413;
/** A consumer's reply is small JSON (one acknowledgement per message); anything longer is not one. */
const MAX_REPLY_BYTES = 1024 * 1024;
/** A shared push's reply carries the lines of up to SHARED_PUSH_MAX_MESSAGES messages. */
const MAX_SHARED_REPLY_BYTES = 4 * MAX_REPLY_BYTES;
/** How much of a consumer's refusal message a failure quotes. */
const MAX_QUOTED_REFUSAL = 200;
const HTTP_UNAUTHORIZED = 401;

/** Where a push goes, for which consumer, signed with what. */
export interface PushTarget {
  consumerId: string;
  host: Host;
  signingSecret?: SigningSecret;
}

/** One push: its body, its id (the same on every attempt of the same messages) and its place among the pushes in flight. */
export interface Push {
  body: Buffer;
  /** Sent as `webhook-id` when the dispatcher signs its pushes (see push-id.ts). */
  id: string;
  order?: PushOrder;
  /**
   * When the consumer has asked for more time (an `extend` of the push's leases), on the monotonic clock: the reply
   * timeout then runs to there instead.
   */
  extendedUntil?: () => number;
}

/**
 * POSTs deliveries to consumers over keep-alive connections (at most `sockets` of them: a push beyond waits for one,
 * and its timeout runs meanwhile; not sent, it is no delivery), signed when the dispatcher has a `signingSecret`,
 * and only to targets the {@link PushTargetGuard} allows (checked on every new connection, after DNS). It knows
 * nothing of retries: one call, one request, one verdict.
 */
export class PushSender {
  private readonly agents: { HTTP: http.Agent; HTTPS: https.Agent };
  /** Pushes on their way now, across every subscription. */
  private open = 0;
  /** URLs of the consumers that answered a push saying they take shared pushes (SHARED_PUSH_HEADER). */
  private readonly sharingHosts = new Set<string>();
  /** The shared pushes to each of them, per signing secret (a shared push is signed as a whole). */
  private readonly lanes = new Map<string, Map<SigningSecret | undefined, SharedPushLane>>();

  constructor(
    private readonly timeoutMs: number = DEFAULT_DELIVERY_TIMEOUT_MS,
    private readonly targets: PushTargetGuard = new PushTargetGuard(new PushTargetPolicy(), new PushTargetResolver()),
    sockets: PushSocketLimits = DEFAULT_PUSH_SOCKET_LIMITS,
    /** Given: batched and shared pushes say that an acknowledgement may carry a request's reply, relayed here. */
    private readonly replies?: PushedReplies,
  ) {
    this.agents = pushAgents(sockets, PUSH_IDLE_SOCKET_TIMEOUT_MS, targets.lookup);
  }

  /** Pushes one delivery body (docs/delivery.md § What the consumer receives) and returns the consumer's acknowledgement. */
  async send(dispatcher: PushTarget, push: Push, signal: AbortSignal): Promise<ConsumerAcknowledgement> {
    const reply = await this.post(dispatcher, MESSAGES_PATH, push, signal);
    if (!isConsumerAcknowledgement(reply)) {
      throw this.failure(dispatcher, MESSAGES_PATH, 'no {"acknowledgement":"ACK"|"NACK"} in the reply');
    }
    return reply;
  }

  /**
   * Pushes `{"messages":[…]}` and returns one acknowledgement per message, in order. A consumer that streams its reply
   * (docs/http-api.md, "Streamed settlement") has each message's acknowledgement handed to `onSettled` as its line
   * arrives; a stream that ends without a line for every message fails (the messages with one stay settled).
   */
  async sendBatch(
    dispatcher: PushTarget,
    push: Push,
    count: number,
    signal: AbortSignal,
    onSettled?: (index: number, acknowledgement: ConsumerAcknowledgement) => void,
  ): Promise<ConsumerAcknowledgement[]> {
    const streamed = new Array<ConsumerAcknowledgement>(count);
    const parser =
      onSettled &&
      new SettlementStreamParser(count, (index, acknowledgement) => {
        streamed[index] = acknowledgement;
        this.relayCarried(acknowledgement);
        onSettled(index, acknowledgement);
      });
    const reply = (await this.post(dispatcher, BATCH_MESSAGES_PATH, push, signal, parser)) as
      { acknowledgements?: unknown } | typeof STREAMED;
    if (reply === STREAMED) {
      const missing = parser!.end();
      if (missing.length > 0) {
        throw this.failure(
          dispatcher,
          BATCH_MESSAGES_PATH,
          `the streamed reply ended with ${missing.length} of ${count} messages unsettled`,
        );
      }
      return streamed;
    }
    const acknowledgements = reply?.acknowledgements;
    if (!Array.isArray(acknowledgements) || acknowledgements.length !== count || !acknowledgements.every(isConsumerAcknowledgement)) {
      throw this.failure(dispatcher, BATCH_MESSAGES_PATH, `the reply needs "acknowledgements" with ${count} entries`);
    }
    if (this.replies === undefined || acknowledgements.every((acknowledgement) => acknowledgement.reply === undefined))
      return acknowledgements;
    return acknowledgements.map((acknowledgement) => {
      const checked = checkedReply(acknowledgement);
      this.relayCarried(checked);
      return checked;
    });
  }

  /** Whether the consumer at `url` (a push member's id) takes shared pushes: it said so in its last answers. */
  sharesPushes(url: string): boolean {
    return this.sharingHosts.has(url);
  }

  /**
   * Sends one subscription's window in the next shared push to its host (SharedPushLane), and returns one
   * acknowledgement per message, in order; `onSettled` hears each as its line arrives. Fails as {@link sendBatch}
   * would for that window alone; a window the consumer refuses with 404 fails with SharedPushRefusedError.
   */
  sendShared(
    dispatcher: PushTarget,
    window: SharedWindow,
    signal: AbortSignal,
    onSettled: (index: number, acknowledgement: ConsumerAcknowledgement) => void,
  ): Promise<ConsumerAcknowledgement[]> {
    const url = dispatcher.host.toUrl();
    let bySecret = this.lanes.get(url);
    if (bySecret === undefined) this.lanes.set(url, (bySecret = new Map()));
    let lane = bySecret.get(dispatcher.signingSecret);
    if (lane === undefined) {
      const post = (body: Buffer, id: string, extendedUntil: () => number, parser: SharedSettlementParser, cutOff: AbortSignal) =>
        this.post(dispatcher, SHARED_MESSAGES_PATH, { body, id, extendedUntil }, cutOff, parser, true);
      lane = new SharedPushLane(post, url, () => this.sharingHosts.delete(url));
      bySecret.set(dispatcher.signingSecret, lane);
    }
    return lane.send(window, signal, (index, acknowledgement) => {
      this.relayCarried(acknowledgement);
      onSettled(index, acknowledgement);
    });
  }

  /**
   * A request's reply carried in its acknowledgement goes to its requester as the acknowledgement is read, before the
   * subscription settles the request: as a consumer's reply request would have gone before its acknowledgement. A reply
   * the relay drops (its requester stopped collecting) is no failure of the push.
   */
  private relayCarried(acknowledgement: ConsumerAcknowledgement): void {
    if (acknowledgement.reply === undefined || this.replies === undefined) return;
    this.replies.relay(acknowledgement.reply);
    acknowledgement.reply = undefined;
  }

  private headersOf(dispatcher: PushTarget, { body, id, order }: Push, streams: boolean, shared: boolean): http.OutgoingHttpHeaders {
    const headers: http.OutgoingHttpHeaders = {
      'content-type': 'application/json',
      'content-length': body.length,
    };
    // A shared push names its consumer ids in its parts.
    if (shared) headers.accept = SETTLEMENT_STREAM_TYPE;
    else headers[CONSUMER_ID_HEADER] = dispatcher.consumerId;
    if (streams && !shared) headers.accept = BATCH_REPLY_ACCEPT;
    if (this.replies !== undefined && (streams || shared)) headers[SETTLEMENT_REPLIES_HEADER] = '1';
    if (order) {
      headers[PUSH_SESSION_HEADER] = order.session;
      headers[PUSH_SEQUENCE_HEADER] = String(order.sequence);
    }
    if (dispatcher.signingSecret) {
      const timestamp = Math.floor(Date.now() / 1000);
      headers[WEBHOOK_ID_HEADER] = id;
      headers[WEBHOOK_TIMESTAMP_HEADER] = String(timestamp);
      headers[WEBHOOK_SIGNATURE_HEADER] = dispatcher.signingSecret.sign(id, timestamp, body);
    }
    return headers;
  }

  /** Resolves with the reply's JSON, or {@link STREAMED} once a streamed reply has been fed to `parser` whole. */
  private post(
    dispatcher: PushTarget,
    path: string,
    push: Push,
    signal: AbortSignal,
    parser?: StreamedReplyParser,
    shared = false,
  ): Promise<unknown> {
    const { host } = dispatcher;
    const client = host.protocol === 'HTTPS' ? https : http;
    const headers = this.headersOf(dispatcher, push, parser !== undefined, shared);
    const url = host.toUrl();
    const maxReplyBytes = shared ? MAX_SHARED_REPLY_BYTES : MAX_REPLY_BYTES;
    const { body } = push;
    return new Promise((resolve, reject) => {
      // A request that was never sent whole cannot have reached a handler.
      let sent = false;
      const fail = (message: string, cause?: unknown, reached = sent, status?: number) => {
        const failure = this.failure(dispatcher, path, message, cause);
        failure.reachedConsumer = reached;
        failure.status = status;
        reject(failure);
      };
      const refusal = this.targets.refusalBeforePush(host);
      if (refusal !== undefined) return fail(`push target ${host.address} is refused: ${refusal}`);
      let timedOut = false;
      /** When a streamed reply last settled a message (monotonic clock); 0 before. */
      let lineAt = 0;
      const agent = this.agents[host.protocol];
      const request = requestMakingRoom(agent, () =>
        client.request(
          url + path,
          {
            method: 'POST',
            agent,
            headers,
          },
          (response) => {
            response.on('error', (error) => fail(timedOut ? `no reply within ${this.timeoutMs} ms` : error.message, error));
            if (response.headers[SHARED_PUSH_HEADER] === '1') this.sharingHosts.add(url);
            if (parser && isStreamedReply(response)) {
              const progressed = () => (lineAt = performance.now());
              return readStreamedReply(
                request,
                response,
                parser,
                maxReplyBytes,
                progressed,
                () => resolve(STREAMED),
                (error) => fail(error.message, error),
              );
            }
            readBoundedReply(request, response, maxReplyBytes, (chunks) => {
              const status = response.statusCode ?? 0;
              if (status === HTTP_UNAUTHORIZED) {
                return reject(new PushUnauthorizedError(this.describe(dispatcher, path, `HTTP 401${refusalOf(chunks)}`)));
              }
              // 503 is the consumer's "not taken, send it again later" (docs/http-api.md): nothing was handled.
              if (status === HTTP_SERVICE_UNAVAILABLE) return fail(`HTTP ${status}${refusalOf(chunks)}`, undefined, false, status);
              if (status === HTTP_PAYLOAD_TOO_LARGE) {
                return reject(new PushTooLargeError(this.describe(dispatcher, path, `HTTP 413${refusalOf(chunks)}`)));
              }
              if (status >= 400) return fail(`HTTP ${status}`, undefined, sent, status);
              try {
                resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
              } catch (error) {
                fail(`HTTP ${status} with a reply that is not JSON`, error);
              }
            });
          },
        ),
      );
      request.once('finish', () => (sent = true));
      this.open++;
      // One timer and one listener per push, both released when it ends: `AbortSignal.timeout` + `AbortSignal.any`
      // cost ~25 µs a push and keep their timers alive for the whole timeout, which adds up at thousands of pushes
      // a second. A consumer that asked for more time (extendedUntil), or whose streamed reply settled a message
      // lately (it is making progress), gets it: the timer is armed again.
      const expire = () => {
        const more = Math.max(push.extendedUntil?.() ?? 0, lineAt + this.timeoutMs) - performance.now();
        if (more > 0) {
          timer = setTimeout(expire, more);
          return;
        }
        timedOut = true;
        request.destroy(new Error(`no reply within ${this.timeoutMs} ms`));
      };
      let timer = setTimeout(expire, this.timeoutMs);
      const abort = () => request.destroy(new Error('delivery aborted: the subscription is stopping'));
      signal.addEventListener('abort', abort, { once: true });
      request.once('close', () => {
        this.open--;
        clearTimeout(timer);
        signal.removeEventListener('abort', abort);
      });
      request.on('error', (error) => fail(timedOut ? `no reply within ${this.timeoutMs} ms` : error.message, error));
      if (signal.aborted) abort();
      request.end(body);
    });
  }

  private failure(dispatcher: PushTarget, path: string, message: string, cause?: unknown): DeliveryFailedError {
    return new DeliveryFailedError(this.describe(dispatcher, path, message), { cause });
  }

  private describe({ consumerId, host }: PushTarget, path: string, message: string): string {
    // A shared push carries windows of several consumer ids.
    if (path === SHARED_MESSAGES_PATH) return `Shared push to ${host.toUrl()}${path} failed: ${message}`;
    return `Delivery to ${consumerId} at ${host.toUrl()}${path} failed: ${message}`;
  }

  get inFlight(): number {
    return this.open;
  }

  /** Drops idle keep-alive connections. */
  close(): void {
    this.agents.HTTP.destroy();
    this.agents.HTTPS.destroy();
  }
}

/** `: <message>` of a consumer's `{"acknowledgement":"NACK","message":…}` reply, shortened; empty if there is none. */
function refusalOf(chunks: Buffer[]): string {
  try {
    const message: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'))?.message;
    if (typeof message !== 'string') return '';
    return `: ${message.length > MAX_QUOTED_REFUSAL ? `${message.slice(0, MAX_QUOTED_REFUSAL)}…` : message}`;
  } catch {
    return '';
  }
}
