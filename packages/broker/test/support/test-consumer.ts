import http from 'node:http';
import { AddressInfo } from 'node:net';

/** One push as the consumer saw it. */
export interface ReceivedDelivery {
  consumerId: string;
  body: {
    id: string;
    topic: string;
    content: unknown;
    headers: Record<string, unknown>;
    offset: number;
    deliveryCount: number;
    redelivered: boolean;
    publishedAt: number | null;
  };
  raw: Buffer;
  at: number;
}

/** How the consumer answers one push: an acknowledgement (maybe late), an HTTP status, or no answer at all. */
export type Reply = 'ACK' | 'NACK' | 'REJECT' | { status: number } | { ackAfterMs: number } | 'hang';

/** A real HTTP consumer on 127.0.0.1 for tests; `reply` decides each answer. */
export class TestConsumer {
  readonly received: ReceivedDelivery[] = [];
  reply: (delivery: ReceivedDelivery) => Reply = () => 'ACK';
  private readonly hung: http.ServerResponse[] = [];
  private readonly server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const delivery: ReceivedDelivery = {
        consumerId: String(request.headers['mmmq-consumer-id']),
        body: JSON.parse(raw.toString('utf8')),
        raw,
        at: Date.now(),
      };
      this.received.push(delivery);
      const reply = this.reply(delivery);
      if (reply === 'hang') {
        this.hung.push(response);
      } else if (typeof reply === 'object' && 'status' in reply) {
        response.writeHead(reply.status).end();
      } else if (typeof reply === 'object') {
        setTimeout(() => acknowledge(response, 'ACK'), reply.ackAfterMs);
      } else if (reply === 'REJECT') {
        respond(response, { acknowledgement: 'NACK', retry: false, message: 'poison message' });
      } else {
        acknowledge(response, reply);
      }
    });
  });

  /** Listens on `port` (0 = any free port) and resolves with the port. */
  async start(port = 0): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    return this.port;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The content of every push received, in arrival order. */
  contents(): unknown[] {
    return this.received.map((delivery) => delivery.body.content);
  }

  /** Resolves once `predicate` holds, polling; fails after `timeoutMs`. */
  async waitFor(predicate: () => boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`Condition not met within ${timeoutMs} ms; got ${this.received.length} deliveries`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async stop(): Promise<void> {
    for (const response of this.hung.splice(0)) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function acknowledge(response: http.ServerResponse, acknowledgement: 'ACK' | 'NACK'): void {
  respond(response, { acknowledgement });
}

function respond(response: http.ServerResponse, body: object): void {
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
