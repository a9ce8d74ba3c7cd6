import http from 'node:http';
import https from 'node:https';
import {
  BATCH_MESSAGES_PATH,
  bearerAuthorization,
  MESSAGES_PATH,
  PublishedMessage,
  publishBatchBody,
  publishBody,
  readBoundedReply,
  SCHEDULED_CANCEL_PATH,
  TransportPublisher,
  type CancelledScheduledMessage,
  type ScheduledMessageRef,
} from '@mmmq/core';
import { BrokerUnreachableError } from '../errors/broker-unreachable.error';
import type { OutgoingMessage } from '../outgoing-message';
import type { BrokerAccess } from './broker-access';
import { BrokerReply, readBatchReply, readCancelReply, readPublishReply } from './broker-reply';

/** A reply is a small acknowledgement (a batch's lists every id); anything this long is not one. */
const MAX_REPLY_BYTES = 16 * 1024 * 1024;
/**
 * Connections to the broker at once; more requests wait for a free one (within their `timeoutMs`). Without a bound,
 * unbatched publishes to many topics open a connection each, and the broker closes those beyond its per-address
 * cap (`http.maxConnectionsPerIp`, 256 by default).
 */
export const HTTP_MAX_SOCKETS = 64;

/**
 * The MMMQ broker's publisher over HTTP (`POST /mmmq/messages`, `/mmmq/messages/batch`), with `node:http`, reusing
 * keep-alive connections across publishes. Every publish is on the hot path, so the body goes out as the string it
 * was built as: no client library re-validating or re-encoding it. Redirects are never followed: a redirected POST
 * may be replayed as a GET, losing the message. Each attempt ends at `timeoutMs`. It reports the broker's answers as
 * the producer's retry policy reads them: a `BrokerResponseError` (status, reason, Retry-After) or a
 * `BrokerUnreachableError`.
 */
export class HttpBrokerPublisher implements TransportPublisher {
  private readonly client: typeof http | typeof https;
  private readonly agent: http.Agent;
  private readonly headers: Record<string, string>;
  private closed?: Promise<void>;

  /**
   * @param broker base URL without a trailing `/`
   * @param timeoutMs deadline of one attempt, from sending to reading the whole answer
   * @param access the token to send and the certificates to trust for an `https://` broker
   */
  constructor(
    private readonly broker: string,
    private readonly timeoutMs: number,
    { token, tls }: BrokerAccess = {},
  ) {
    const secure = broker.startsWith('https:');
    this.client = secure ? https : http;
    const agentOptions = { keepAlive: true, maxSockets: HTTP_MAX_SOCKETS };
    this.agent = secure ? new https.Agent({ ...agentOptions, ca: tls?.ca }) : new http.Agent(agentOptions);
    this.headers = { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: bearerAuthorization(token) }) };
  }

  async publish(message: OutgoingMessage): Promise<PublishedMessage> {
    return readPublishReply(await this.post(MESSAGES_PATH, [publishBody(message)]), message);
  }

  async publishBatch(messages: readonly OutgoingMessage[]): Promise<PublishedMessage[]> {
    return readBatchReply(await this.post(BATCH_MESSAGES_PATH, publishBatchBody(messages)), messages);
  }

  /** `POST /mmmq/scheduled/cancel`; one attempt, answered once the cancellation is durable. */
  async cancelScheduled(topic: string, message: ScheduledMessageRef): Promise<CancelledScheduledMessage> {
    const body = JSON.stringify({ topic, id: message.id, ...(message.offset === undefined ? {} : { offset: message.offset }) });
    return readCancelReply(await this.post(SCHEDULED_CANCEL_PATH, [body]));
  }

  close(): Promise<void> {
    this.closed ??= Promise.resolve().then(() => this.agent.destroy());
    return this.closed;
  }

  /** POSTs the UTF-8 of `body` joined. */
  private post(path: string, body: readonly string[]): Promise<BrokerReply> {
    const url = `${this.broker}${path}`;
    // A total deadline for the attempt: a socket timeout only notices a connection that stays idle.
    const deadline = AbortSignal.timeout(this.timeoutMs);
    return new Promise((resolve, reject) => {
      const fail = (error: Error) => {
        const what = deadline.aborted ? `no answer within ${this.timeoutMs} ms` : describeNetworkError(error);
        reject(new BrokerUnreachableError(`Could not reach the broker at ${url}: ${what}`, { cause: error }));
      };
      const request = this.client.request(
        url,
        {
          method: 'POST',
          agent: this.agent,
          signal: deadline,
          headers: { ...this.headers, 'content-length': byteLength(body) },
        },
        (response) => {
          response.on('error', fail);
          readBoundedReply(request, response, MAX_REPLY_BYTES, (chunks) => {
            const retryAfter = response.headers['retry-after'];
            resolve({
              url,
              status: response.statusCode ?? 0,
              body: Buffer.concat(chunks).toString('utf8'),
              retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
            });
          });
        },
      );
      request.on('error', fail);
      for (const part of body) request.write(part);
      request.end();
    });
  }
}

function byteLength(parts: readonly string[]): number {
  let bytes = 0;
  for (const part of parts) bytes += Buffer.byteLength(part);
  return bytes;
}

function describeNetworkError(error: Error): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
}
