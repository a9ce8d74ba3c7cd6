import http from 'node:http';
import https from 'node:https';
import { MESSAGES_PATH, PublishedMessage } from '@mmmq/core';
import axios, { AxiosInstance } from 'axios';
import { BrokerUnreachableError } from '../errors/broker-unreachable.error';
import type { OutgoingMessage } from '../outgoing-message';
import { BrokerGateway } from './broker-gateway';
import { BrokerReply, readBatchReply, readPublishReply } from './broker-reply';
import { publishBatchBody, publishBody } from './publish-body';

const BATCH_PATH = `${MESSAGES_PATH}/batch`;
/** A reply is a small acknowledgement (a batch's lists every id); anything this long is not one. */
const MAX_REPLY_BYTES = 16 * 1024 * 1024;

/** Publishes over HTTP with axios, reusing keep-alive connections across publishes. */
export class HttpBrokerGateway extends BrokerGateway {
  private readonly httpAgent = new http.Agent({ keepAlive: true });
  private readonly httpsAgent = new https.Agent({ keepAlive: true });
  private readonly client: AxiosInstance;
  private closed?: Promise<void>;

  /**
   * @param broker base URL without a trailing `/`
   * @param timeoutMs deadline of one attempt, from sending to reading the whole answer
   */
  constructor(
    private readonly broker: string,
    private readonly timeoutMs: number,
  ) {
    super();
    this.client = axios.create({
      httpAgent: this.httpAgent,
      httpsAgent: this.httpsAgent,
      headers: { 'content-type': 'application/json' },
      // Redirects are not followed: a redirected POST may be replayed as a GET, losing the message.
      maxRedirects: 0,
      maxContentLength: MAX_REPLY_BYTES,
      // Every status is an answer to classify, and the body is parsed here, so that an unreadable one is
      // reported instead of silently turned into a string.
      validateStatus: () => true,
      responseType: 'text',
      transformResponse: (data: unknown) => data,
    });
  }

  async publish(message: OutgoingMessage): Promise<PublishedMessage> {
    return readPublishReply(await this.post(MESSAGES_PATH, publishBody(message)), message);
  }

  async publishBatch(messages: readonly OutgoingMessage[]): Promise<PublishedMessage[]> {
    return readBatchReply(await this.post(BATCH_PATH, publishBatchBody(messages)), messages);
  }

  close(): Promise<void> {
    this.closed ??= Promise.resolve().then(() => {
      this.httpAgent.destroy();
      this.httpsAgent.destroy();
    });
    return this.closed;
  }

  private async post(path: string, body: string): Promise<BrokerReply> {
    const url = `${this.broker}${path}`;
    // A total deadline: axios' own `timeout` only notices a socket that stays idle, not a slow trickle.
    const deadline = AbortSignal.timeout(this.timeoutMs);
    try {
      const response = await this.client.post<string>(url, body, { signal: deadline });
      const retryAfter: unknown = response.headers['retry-after'];
      return {
        url,
        status: response.status,
        body: typeof response.data === 'string' ? response.data : '',
        retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
      };
    } catch (error) {
      const what = deadline.aborted ? `no answer within ${this.timeoutMs} ms` : describeNetworkError(error);
      throw new BrokerUnreachableError(`Could not reach the broker at ${url}: ${what}`, { cause: error });
    }
  }
}

function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
}
