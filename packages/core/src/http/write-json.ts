import type { ServerResponse } from 'node:http';

/** Answers with `body` as JSON, with its length, on Node's own response (outside a framework's reply). */
export function writeJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const json = JSON.stringify(body);
  response.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json) });
  response.end(json);
}
