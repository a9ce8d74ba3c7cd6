import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A message of a batch the fake broker received. */
export interface ReceivedMessage {
  id: string;
  topic: string;
  deliveryMode?: string;
}

/** What the fake broker answers: a status and a JSON body. */
export interface FakeAnswer {
  status: number;
  body: unknown;
}

/**
 * An HTTP server in place of the broker, answering each `POST /mmmq/messages/batch` as `answer` decides (a
 * refusal a real broker only sends when misconfigured, a proxy's 404 during a deploy), or not at all when it
 * returns `undefined` (a hung broker), and recording the batches.
 */
export interface FakeBroker {
  url: string;
  /** Every batch received, in order. */
  batches: ReceivedMessage[][];
  close(): Promise<void>;
}

/** The ACK a broker sends for a persistent batch, offsets counted from 0. */
export function acknowledged(messages: ReceivedMessage[]): FakeAnswer {
  return {
    status: 200,
    body: {
      acknowledgement: 'ACK',
      messages: messages.map(({ id, topic }, offset) => ({ id, topic, offset, deliveryMode: 'persistent' })),
    },
  };
}

/** A NACK with `status`, as the broker (or a proxy) words it. */
export function refused(status: number, message: string): FakeAnswer {
  return { status, body: { acknowledgement: 'NACK', message } };
}

export async function startFakeBroker(answer: (messages: ReceivedMessage[]) => FakeAnswer | undefined): Promise<FakeBroker> {
  const batches: ReceivedMessage[][] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const { messages } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: ReceivedMessage[] };
      batches.push(messages);
      const answered = answer(messages);
      if (answered === undefined) return;
      response.writeHead(answered.status, { 'content-type': 'application/json' }).end(JSON.stringify(answered.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    batches,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
