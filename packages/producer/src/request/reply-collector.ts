import http from 'node:http';
import https from 'node:https';
import {
  anySignal,
  bearerAuthorization,
  LineBuffer,
  MmmqError,
  parseReply,
  readBoundedReply,
  REPLIES_PATH,
  type Reply,
  SETTLEMENT_STREAM_TYPE,
} from '@mmmq/core';
import type { BrokerAccess } from '../gateway/broker-access';

/** How long one collection waits on the broker for a first reply (long poll). */
export const REPLY_COLLECT_WAIT_MS = 20_000;
/** A collection's answer is a list of replies; anything this long is not one. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;
/** Beyond the long poll's own wait, how long to wait for the broker's answer. */
const ANSWER_MARGIN_MS = 10_000;

/** The broker answered a collection with a status that will not change by asking again (404: no relay there). */
export class ReplyCollectionRefused extends MmmqError {
  constructor(
    readonly status: number,
    body: string,
  ) {
    super(`the broker answered ${status}: ${body.slice(0, 200)}`);
  }
}

/** What the collection asks for: replies streamed as lines, or (a broker before streamed collections) one JSON answer. */
const COLLECT_ACCEPT = `${SETTLEMENT_STREAM_TYPE}, application/json`;

/**
 * Collects the replies of one inbox from the broker's relay over HTTP (`POST /mmmq/replies/{inbox}/fetch`), one
 * collection at a time, on a connection of its own so that publishes never wait behind it. The broker streams each
 * reply as a line while the collection lasts; an older broker answers a long poll with the replies of that moment.
 */
export class ReplyCollector {
  private readonly client: typeof http | typeof https;
  private readonly agent: http.Agent;
  private readonly headers: Record<string, string>;

  constructor(
    private readonly broker: string,
    private readonly inbox: string,
    { token, tls }: BrokerAccess = {},
  ) {
    const secure = broker.startsWith('https:');
    this.client = secure ? https : http;
    this.agent = secure
      ? new https.Agent({ keepAlive: true, maxSockets: 1, ca: tls?.ca })
      : new http.Agent({ keepAlive: true, maxSockets: 1 });
    this.headers = { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: bearerAuthorization(token) }) };
  }

  /**
   * Hands each reply of the inbox to `onReply` as it comes, for up to `waitMs` (a streamed collection), or those of
   * the moment the first came (a long poll); resolves once the broker ended its answer.
   */
  collect(waitMs: number, signal: AbortSignal, onReply: (reply: Reply) => void): Promise<void> {
    const url = `${this.broker}${REPLIES_PATH}/${this.inbox}/fetch`;
    const body = JSON.stringify({ waitMs });
    // Not AbortSignal.any: combined with the producer's long-lived closing signal on every poll, it would leak.
    const expired = new AbortController();
    const timer = setTimeout(() => expired.abort(new Error(`no answer within ${waitMs + ANSWER_MARGIN_MS} ms`)), waitMs + ANSWER_MARGIN_MS);
    const deadline = anySignal([signal, expired.signal]);
    return new Promise<void>((resolve, reject) => {
      const request = this.client.request(
        url,
        {
          method: 'POST',
          agent: this.agent,
          signal: deadline.signal,
          headers: { ...this.headers, accept: COLLECT_ACCEPT, 'content-length': Buffer.byteLength(body) },
        },
        (response) => {
          response.on('error', reject);
          const type = response.headers['content-type'];
          if (response.statusCode === 200 && type !== undefined && type.toLowerCase().startsWith(SETTLEMENT_STREAM_TYPE)) {
            const lines = new LineBuffer((line) => onReply(parseReply(JSON.parse(line))));
            response.on('data', (chunk: Buffer) => {
              try {
                lines.push(chunk);
              } catch (error) {
                // Rejected here, then cut off: an error given to destroy() would be emitted where nobody listens.
                reject(error as Error);
                request.destroy();
              }
            });
            response.on('end', () => {
              try {
                lines.end();
                resolve();
              } catch (error) {
                reject(error as Error);
              }
            });
            return;
          }
          readBoundedReply(request, response, MAX_ANSWER_BYTES, (chunks) => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = response.statusCode ?? 0;
            if (status !== 200)
              return reject(
                status >= 500 || status === 429 ? new Error(`the broker answered ${status}`) : new ReplyCollectionRefused(status, text),
              );
            try {
              const { replies } = JSON.parse(text) as { replies?: unknown };
              if (Array.isArray(replies)) for (const reply of replies.map(parseReply)) onReply(reply);
              resolve();
            } catch (error) {
              reject(error as Error);
            }
          });
        },
      );
      request.on('error', reject);
      request.end(body);
    }).finally(() => {
      clearTimeout(timer);
      deadline.dispose();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
