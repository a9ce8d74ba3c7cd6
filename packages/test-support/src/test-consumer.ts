import http from 'node:http';
import https from 'node:https';
import { AddressInfo } from 'node:net';
import { expectQuiet, waitFor } from './wait-for';

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
    expiresAt?: number;
    priority?: number;
  };
  raw: Buffer;
  /** The request's headers (for batches, those of the request that carried it). */
  headers: http.IncomingHttpHeaders;
  at: number;
  /** `mmmq-push-session` and `mmmq-push-sequence`, sent when the dispatcher has several pushes in flight. */
  session?: string;
  sequence?: number;
}

/** How the consumer answers one push: an acknowledgement (maybe late), an HTTP status, or no answer at all. */
export type Reply = 'ACK' | 'NACK' | 'REJECT' | { status: number; body?: object; afterMs?: number } | { ackAfterMs: number } | 'hang';

export interface TestConsumerOptions {
  /** Serve HTTPS with this key and certificate (PEM) instead of plain HTTP. */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** The host name in {@link TestConsumer.url}; default 127.0.0.1 (a certificate must name it). */
  hostname?: string;
}

/**
 * A real push consumer on 127.0.0.1 that records every delivery (single pushes and batches) and answers as
 * `reply` decides.
 */
export class TestConsumer {
  readonly received: ReceivedDelivery[] = [];
  reply: (delivery: ReceivedDelivery) => Reply = () => 'ACK';
  private readonly hung: http.ServerResponse[] = [];
  /** Number of HTTP requests received, single or batch. */
  requests = 0;
  /** Every HTTP request as received: path, headers and body bytes. */
  readonly rawRequests: Array<{ url: string; headers: http.IncomingHttpHeaders; raw: Buffer }> = [];
  /** Requests open at once, now and at most so far. */
  open = 0;
  maxOpen = 0;
  private readonly server: http.Server;

  constructor(private readonly options: TestConsumerOptions = {}) {
    const handler: http.RequestListener = (request, response) => this.handle(request, response);
    this.server = options.tls ? https.createServer({ key: options.tls.key, cert: options.tls.cert }, handler) : http.createServer(handler);
  }

  private handle(request: http.IncomingMessage, response: http.ServerResponse): void {
    this.maxOpen = Math.max(this.maxOpen, ++this.open);
    response.once('close', () => this.open--);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      this.requests++;
      const raw = Buffer.concat(chunks);
      this.rawRequests.push({ url: request.url ?? '', headers: request.headers, raw });
      const consumerId = String(request.headers['mmmq-consumer-id']);
      const session = request.headers['mmmq-push-session'] as string | undefined;
      const sequence = session === undefined ? undefined : Number(request.headers['mmmq-push-sequence']);
      const parsed = JSON.parse(raw.toString('utf8'));
      if (request.url?.endsWith('/batch')) return this.answerBatch(consumerId, parsed.messages, request.headers, response);
      const delivery: ReceivedDelivery = { consumerId, body: parsed, raw, headers: request.headers, at: Date.now(), session, sequence };
      this.received.push(delivery);
      this.answer(this.reply(delivery), response);
    });
  }

  private answer(reply: Reply, response: http.ServerResponse): void {
    if (reply === 'hang') {
      this.hung.push(response);
    } else if (typeof reply === 'object' && 'status' in reply) {
      const { status, body, afterMs } = reply;
      const write = () =>
        body
          ? response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
          : response.writeHead(status).end();
      if (afterMs === undefined) write();
      else setTimeout(write, afterMs);
    } else if (typeof reply === 'object') {
      setTimeout(() => acknowledge(response, 'ACK'), reply.ackAfterMs);
    } else if (reply === 'REJECT') {
      respond(response, REJECTION);
    } else {
      acknowledge(response, reply);
    }
  }

  /** A batch gets one acknowledgement per message; an HTTP-level reply for its first message applies to all. */
  private answerBatch(
    consumerId: string,
    bodies: ReceivedDelivery['body'][],
    headers: http.IncomingHttpHeaders,
    response: http.ServerResponse,
  ): void {
    const replies = bodies.map((body) => {
      const delivery: ReceivedDelivery = { consumerId, body, raw: Buffer.from(JSON.stringify(body)), headers, at: Date.now() };
      this.received.push(delivery);
      return this.reply(delivery);
    });
    if (replies[0] !== 'ACK' && replies[0] !== 'NACK' && replies[0] !== 'REJECT') return this.answer(replies[0], response);
    const acknowledgements = replies.map((reply) =>
      reply === 'REJECT' ? REJECTION : { acknowledgement: reply === 'NACK' ? 'NACK' : 'ACK' },
    );
    respond(response, { acknowledgements });
  }

  /** Listens on `port` (0 = any free port) and resolves with the port. */
  async start(port = 0): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    return this.port;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `${this.options.tls ? 'https' : 'http'}://${this.options.hostname ?? '127.0.0.1'}:${this.port}`;
  }

  /** The content of every push received, in arrival order. */
  contents(): unknown[] {
    return this.received.map((delivery) => delivery.body.content);
  }

  /** Resolves once `predicate` holds; fails after the deadline (a number is the deadline in ms) with the message. */
  async waitFor(
    predicate: () => boolean,
    options: number | { deadlineMs?: number; message?: string | (() => string) } = {},
  ): Promise<void> {
    const { deadlineMs, message } = typeof options === 'number' ? { deadlineMs: options, message: undefined } : options;
    const awaited = typeof message === 'function' ? message : () => message ?? 'the deliveries awaited';
    await waitFor(predicate, {
      deadlineMs,
      message: () => `${awaited()}; got ${this.received.length} deliveries`,
    });
  }

  /** Fails at the first delivery arriving within `forMs`: proves that nothing else is delivered. */
  async expectQuiet(options: { forMs: number; message: string }): Promise<void> {
    await expectQuiet(this, options);
  }

  async stop(): Promise<void> {
    for (const response of this.hung.splice(0)) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const REJECTION = { acknowledgement: 'NACK', retry: false, message: 'poison message' };

function acknowledge(response: http.ServerResponse, acknowledgement: 'ACK' | 'NACK'): void {
  respond(response, { acknowledgement });
}

function respond(response: http.ServerResponse, body: object): void {
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
