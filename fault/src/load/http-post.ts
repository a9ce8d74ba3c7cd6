import { Agent, request } from 'node:http';

export interface HttpAnswer {
  status: number;
  body: string;
}

/** JSON requests carry this; the broker may refuse anything else (docs/security.md § Content types). */
export const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * Sends one request and resolves with the answer; rejects on a connection error or when no answer came within
 * `timeoutMs` (the outcome is then unknown).
 */
export function httpRequest(
  url: string,
  options: { method?: string; body?: string | Buffer; agent?: Agent; timeoutMs: number; headers?: Record<string, string> },
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const headers = options.body === undefined ? options.headers : { ...JSON_HEADERS, ...options.headers };
    const outgoing = request(url, { method: options.method ?? 'POST', agent: options.agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
      response.on('error', fail);
    });
    const timer = setTimeout(() => fail(new Error(`No answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    function fail(error: Error) {
      clearTimeout(timer);
      outgoing.destroy();
      reject(error);
    }
    outgoing.on('error', fail);
    outgoing.end(options.body);
  });
}
