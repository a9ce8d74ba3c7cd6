import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A publish request as the fake broker received it. */
export interface FakePublish {
  id: string;
  topic: string;
  /** The raw request body. */
  body: string;
}

/**
 * How the fake broker answers `POST /mmmq/messages`: acknowledge like the real broker (`ack`), hold the answer until
 * `release()` (`hold`), or answer 503 NACK, a failure the producer retries (`unavailable`).
 */
export type FakeBrokerMode = 'ack' | 'hold' | 'unavailable';

export interface FakeBroker {
  url: string;
  /** Every publish received so far, in arrival order. */
  readonly requests: readonly FakePublish[];
  /** Publishes received whose answer is held back. */
  readonly held: number;
  /** Answers every held publish with an ACK. */
  release(): void;
  close(): Promise<void>;
}

/** A node:http server on a free loopback port standing in for the broker's single-message publish route. */
export async function startFakeBroker(mode: FakeBrokerMode): Promise<FakeBroker> {
  const requests: FakePublish[] = [];
  const held: Array<() => void> = [];
  let nextOffset = 0;

  const answer = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const body = await readBody(request);
    const { id, topic } = JSON.parse(body) as { id: string; topic: string };
    requests.push({ id, topic, body });
    // The real broker's ACK: the stored message's id, topic and offset (packages/core/src/wire.ts).
    const ack = () => send(response, 200, { acknowledgement: 'ACK', id, topic, offset: nextOffset++ });
    if (mode === 'unavailable') send(response, 503, { acknowledgement: 'NACK', message: 'Service Unavailable' });
    else if (mode === 'hold') held.push(ack);
    else ack();
  };

  const server = createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== '/mmmq/messages') return send(response, 404, { message: 'Not Found' });
    answer(request, response).catch((error: unknown) => send(response, 500, { message: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get held() {
      return held.length;
    },
    release: () => held.splice(0).forEach((ack) => ack()),
    close: () =>
      new Promise<void>((resolve) => {
        // Held requests and keep-alive connections would otherwise keep the server open.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
