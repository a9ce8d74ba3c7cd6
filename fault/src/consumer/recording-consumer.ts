import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { nextPort } from '../harness/port-range';

/** One message a push brought. */
export interface PushedMessage {
  id: string;
  topic: string;
  offset: number;
  redelivered: boolean;
}

export interface Delivery extends PushedMessage {
  /** Which broker process delivered it (the harness counts restarts). */
  epoch: number;
  /** Its place among the consumer's events (arrivals and settlements), from 1. */
  seq: number;
  /** When its ACK was written to the broker (the event's place): a line of a streamed reply, or the whole reply. */
  settledSeq?: number;
  /** What the inspection found wrong with it (garbage), checked on arrival. */
  problem?: string;
}

/**
 * Checks a pushed message on arrival against the request body it came in (its content must appear there
 * verbatim), so bodies need not be kept. Returns a problem, or undefined.
 */
export type DeliveryInspection = (message: PushedMessage, body: Buffer) => string | undefined;

/** Pushes per request when the dispatcher asks for batches (`batchSize`); a plain consumer takes them one by one. */
export const CHECKER_BATCH_SIZE = 100;
/** Lines of a streamed reply written per turn of the event loop: a kill can land between two writes of one push. */
const STREAM_LINES_PER_WRITE = 10;

/**
 * A push consumer on 127.0.0.1 that acknowledges everything and records what it got: a plain node:http server
 * speaking the wire contract (`POST /mmmq/messages`, and `/mmmq/messages/batch` for a batching dispatcher). A batch
 * whose broker asks for a streamed reply is settled a few lines at a time (docs/http-api.md, "Streamed settlement"),
 * recording when each ACK went out. A body that is not the documented JSON is recorded as malformed and answered 400.
 */
export class RecordingConsumer {
  readonly deliveries: Delivery[] = [];
  readonly malformed: string[] = [];
  /** Per topic, the highest offset received: it was committed (pushes follow the commit). */
  readonly highestOffset = new Map<string, number>();
  /** Set by the harness before each broker start. */
  epoch = 0;
  private seq = 0;
  /**
   * The epoch each connection was accepted in: a push's bytes the broker sent just before its SIGKILL may be read
   * after the harness moved to the next epoch, and belong to the broker that opened the connection.
   */
  private readonly connectionEpochs = new WeakMap<object, number>();
  private readonly server = http
    .createServer((request, response) => this.handle(request, response))
    .on('connection', (socket) => this.connectionEpochs.set(socket, this.epoch));

  constructor(private readonly inspect: DeliveryInspection = () => undefined) {}

  async start(): Promise<void> {
    const port = await nextPort();
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The dispatcher entry for `dispatchers.json`. */
  dispatcher(consumerId: string, pattern = '**', batchSize = CHECKER_BATCH_SIZE): object {
    return batchSize === 1 ? { consumerId, host: this.url, pattern } : { consumerId, host: this.url, pattern, batchSize };
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(request: http.IncomingMessage, response: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const batch = request.url === '/mmmq/messages/batch';
      const messages = this.parse(body, batch);
      if (!messages) {
        this.malformed.push(body.subarray(0, 200).toString('utf8'));
        response.writeHead(400, { 'content-type': 'application/json' }).end('{"acknowledgement":"NACK","retry":false}');
        return;
      }
      const epoch = this.connectionEpochs.get(request.socket) ?? this.epoch;
      const received = messages.map((message) => {
        const delivery: Delivery = { ...message, epoch, seq: ++this.seq, problem: this.inspect(message, body) };
        this.deliveries.push(delivery);
        this.highestOffset.set(message.topic, Math.max(this.highestOffset.get(message.topic) ?? -1, message.offset));
        return delivery;
      });
      if (batch && String(request.headers.accept ?? '').includes('application/x-ndjson')) return this.stream(received, response);
      const answer = batch ? { acknowledgements: messages.map(() => ({ acknowledgement: 'ACK' })) } : { acknowledgement: 'ACK' };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      this.settled(received);
    });
  }

  /** Answers a batch line by line, a few lines a turn, until done or the broker is gone. */
  private stream(received: Delivery[], response: http.ServerResponse): void {
    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const next = (from: number) => {
      if (response.destroyed) return;
      const part = received.slice(from, from + STREAM_LINES_PER_WRITE);
      response.write(part.map((_, i) => `{"index":${from + i},"acknowledgement":"ACK"}\n`).join(''));
      this.settled(part);
      if (from + part.length < received.length) setImmediate(() => next(from + part.length));
      else response.end();
    };
    next(0);
  }

  private settled(deliveries: Delivery[]): void {
    for (const delivery of deliveries) delivery.settledSeq = ++this.seq;
  }

  private parse(body: Buffer, batch: boolean): PushedMessage[] | undefined {
    let value: unknown;
    try {
      value = JSON.parse(body.toString('utf8'));
    } catch {
      return undefined;
    }
    const list = batch ? (value as { messages?: unknown } | null)?.messages : [value];
    if (!Array.isArray(list)) return undefined;
    const messages: PushedMessage[] = [];
    for (const item of list) {
      const { id, topic, offset, redelivered } = (item ?? {}) as Record<string, unknown>;
      if (typeof id !== 'string' || typeof topic !== 'string' || typeof offset !== 'number') return undefined;
      messages.push({ id, topic, offset, redelivered: redelivered === true });
    }
    return messages;
  }
}
