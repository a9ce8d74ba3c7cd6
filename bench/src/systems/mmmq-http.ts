import http from 'node:http';
import type { FsyncCounters } from './system';

export interface HttpAnswer {
  status: number;
  text: string;
}

/**
 * One request to the broker on 127.0.0.1, resolving with its status and body. With `agent` the request goes
 * over that agent's keep-alive connection; without, over a fresh one (housekeeping, not measured).
 */
export function httpRequest(
  port: number,
  method: string,
  urlPath: string,
  options: { body?: string; agent?: http.Agent } = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders =
      options.body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(options.body) };
    const request = http.request({ host: '127.0.0.1', port, path: urlPath, method, headers, agent: options.agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

/** Where the broker tells its storage counters (see the journal's `GET /mmmq/storage`). */
export const STORAGE_PATH = '/mmmq/storage';

/**
 * `fsyncs` from `GET /mmmq/storage`, or why there are none: a broker built before the journal answers 404,
 * which the report shows as "n/a".
 */
export async function readFsyncCounters(port: number): Promise<FsyncCounters | string> {
  let answer: HttpAnswer;
  try {
    answer = await httpRequest(port, 'GET', STORAGE_PATH);
  } catch (error) {
    return `GET ${STORAGE_PATH} failed: ${(error as Error).message}`;
  }
  if (answer.status === 404) return `this broker has no GET ${STORAGE_PATH} (it answered 404)`;
  if (answer.status !== 200) return `GET ${STORAGE_PATH} answered ${answer.status}`;
  let fsyncs: Partial<Record<keyof FsyncCounters, unknown>> | undefined;
  try {
    fsyncs = (JSON.parse(answer.text) as { fsyncs?: Partial<Record<keyof FsyncCounters, unknown>> }).fsyncs;
  } catch {
    return `GET ${STORAGE_PATH} answered no JSON`;
  }
  if (typeof fsyncs?.total !== 'number') return `GET ${STORAGE_PATH} has no fsyncs.total`;
  const count = (value: unknown) => (typeof value === 'number' ? value : NaN);
  return { total: fsyncs.total, journal: count(fsyncs.journal), flush: count(fsyncs.flush), other: count(fsyncs.other) };
}
