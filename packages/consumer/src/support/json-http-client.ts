import http from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { bearerAuthorization, readBoundedReply, TlsClientOptions } from '@mmmq/core';
import { BrokerRequestError } from '../errors/broker-request.error';

/**
 * A fetch answers at most its `maxBytes` (1 MiB unless asked) plus one message, an acknowledgement a little JSON:
 * anything this long is not an answer of the broker.
 */
const MAX_REPLY_BYTES = 16 * 1024 * 1024;

/** The broker's answer: its status and its body, parsed as JSON when it is JSON (else the text, or undefined when empty). */
export interface JsonHttpResponse {
  status: number;
  data: unknown;
}

/**
 * POSTs JSON to the broker with `node:http` over keep-alive connections and reads its JSON answer. Every fetch and
 * every batch of acknowledgements of a pull listener goes through here, so it does only that: no client library
 * merging configs, walking interceptors and copying headers per request (axios cost about a millisecond of CPU per
 * request, more than the whole handling of the ten or so messages an ack request carries). Never follows redirects.
 */
export class JsonHttpClient {
  private readonly client: typeof http | typeof https;
  private readonly agent: http.Agent;
  private readonly headers: Record<string, string>;
  /** Where each path goes, parsed once: a listener POSTs to the same few URLs over and over. */
  private readonly targets = new Map<string, http.RequestOptions>();

  constructor(
    private readonly baseUrl: string,
    { token, tls }: { token?: string; tls?: TlsClientOptions } = {},
  ) {
    const secure = baseUrl.startsWith('https:');
    this.client = secure ? https : http;
    this.agent = secure ? new https.Agent({ keepAlive: true, ca: tls?.ca }) : new http.Agent({ keepAlive: true });
    this.headers = { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: bearerAuthorization(token) }) };
  }

  /**
   * POSTs `body` as JSON to `path` and resolves with the answer, whatever its status.
   * @param timeoutMs deadline from sending to reading the whole answer
   * @throws BrokerRequestError (retriable) when no complete answer came: refused, reset, timed out or aborted by `signal`
   */
  post(path: string, body: unknown, timeoutMs: number, signal?: AbortSignal): Promise<JsonHttpResponse> {
    const url = `${this.baseUrl}${path}`;
    const target = this.target(url);
    const payload = Buffer.from(JSON.stringify(body), 'utf8');
    return new Promise<JsonHttpResponse>((resolve, reject) => {
      let settled = false;
      const unanswered = (what: string, cause?: unknown) =>
        new BrokerRequestError(`POST ${url} failed: ${what}`, true, cause === undefined ? undefined : { cause });
      const finish = (error: BrokerRequestError | undefined, response?: JsonHttpResponse): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (error === undefined) resolve(response!);
        else {
          request.destroy();
          reject(error);
        }
      };
      const fail = (error: Error) => finish(unanswered(error.message || String((error as { code?: unknown }).code), error));
      const onAbort = () => finish(unanswered('the request was aborted'));
      // A total deadline: a socket timeout would only notice a connection that stays idle.
      const timer = setTimeout(() => finish(unanswered(`no answer within ${timeoutMs} ms`)), timeoutMs);
      const request = this.client.request(
        { ...target, method: 'POST', agent: this.agent, headers: { ...this.headers, 'content-length': payload.length } },
        (response) => {
          response.on('error', fail);
          readBoundedReply(request, response, MAX_REPLY_BYTES, (chunks) =>
            finish(undefined, { status: response.statusCode ?? 0, data: parseBody(chunks) }),
          );
          // Also after 'end': only a close before it is a failure (and an Error's stack is not free).
          response.on('close', () => settled || fail(new Error('the connection closed before the whole answer came')));
        },
      );
      request.on('error', fail);
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      request.end(payload);
    });
  }

  private target(url: string): http.RequestOptions {
    let target = this.targets.get(url);
    if (target === undefined) this.targets.set(url, (target = urlToHttpOptions(new URL(url))));
    return target;
  }

  /** Drops idle keep-alive connections. */
  close(): void {
    this.agent.destroy();
  }
}

function parseBody(chunks: Buffer[]): unknown {
  if (chunks.length === 0) return undefined;
  const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
