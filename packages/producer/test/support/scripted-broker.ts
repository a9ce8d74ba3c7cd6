import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A publish request as the scripted broker received it. */
export interface ReceivedRequest {
  path: string;
  body: any;
  /** The message ids it carried, in order. */
  ids: string[];
}

/** An explicit answer: status, JSON (or raw text) body and headers. */
export interface CannedReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * What the scripted broker does with one request: answer as given, acknowledge it itself (`ack`), forward it to
 * the upstream broker (`proxy`), or never answer (`hang`).
 */
export type Reply = CannedReply | 'ack' | 'proxy' | 'hang';

export interface ScriptedBroker {
  url: string;
  /** Every request received so far, in arrival order. */
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

export const nack = (message = 'try again'): CannedReply => ({
  status: 200,
  body: { acknowledgement: 'NACK', message },
});

export const failure = (status: number, message: string, headers?: Record<string, string>): CannedReply => ({
  status,
  body: { acknowledgement: 'NACK', message },
  headers,
});

/**
 * A real HTTP server standing in for the broker: the n-th request gets `replies[n]`, and every request after
 * the last gets the last reply again.
 */
export async function startScriptedBroker(replies: Reply[], upstream?: string): Promise<ScriptedBroker> {
  const requests: ReceivedRequest[] = [];
  let nextOffset = 0;

  const answer = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const text = await readBody(request);
    const body = JSON.parse(text);
    const batch: any[] = Array.isArray(body.messages) ? body.messages : [body];
    requests.push({ path: request.url ?? '', body, ids: batch.map((message) => message.id) });
    const reply = replies[Math.min(requests.length, replies.length) - 1];
    if (reply === 'hang') return;
    if (reply === 'proxy') return forward(upstream, request.url ?? '', text, response);
    if (reply === 'ack') {
      const published = batch.map((message) => ({ id: message.id, topic: message.topic, offset: nextOffset++ }));
      const ack = Array.isArray(body.messages)
        ? { acknowledgement: 'ACK', messages: published }
        : { acknowledgement: 'ACK', ...published[0] };
      return send(response, { status: 200, body: ack });
    }
    send(response, reply);
  };

  const server: Server = createServer((request, response) => {
    answer(request, response).catch((error: unknown) => send(response, { status: 599, body: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        // Hung requests and keep-alive connections would otherwise hold the server open.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A URL on which nothing listens: a port that was free a moment ago. */
export async function refusingUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

async function forward(upstream: string | undefined, path: string, body: string, response: ServerResponse) {
  if (upstream === undefined) throw new Error('The scripted broker has no upstream to proxy to');
  const upstreamResponse = await fetch(upstream + path, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json' },
  });
  send(response, { status: upstreamResponse.status, body: await upstreamResponse.json() });
}

function send(response: ServerResponse, reply: CannedReply): void {
  const body = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? null);
  response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  response.end(body);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
