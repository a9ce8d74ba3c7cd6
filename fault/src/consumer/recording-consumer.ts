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

/**
 * A push consumer on 127.0.0.1 that acknowledges everything and records what it got: a plain node:http server
 * speaking the wire contract (`POST /mmmq/messages`, and `/mmmq/messages/batch` for a batching dispatcher).
 * A body that is not the documented JSON is recorded as malformed and answered 400.
 */
export class RecordingConsumer {
  readonly deliveries: Delivery[] = [];
  readonly malformed: string[] = [];
  /** Per topic, the highest offset received: it was committed (pushes follow the commit). */
  readonly highestOffset = new Map<string, number>();
  /** Set by the harness before each broker start. */
  epoch = 0;
  private readonly server = http.createServer((request, response) => this.handle(request, response));

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
      for (const message of messages) {
        this.deliveries.push({ ...message, epoch: this.epoch, problem: this.inspect(message, body) });
        this.highestOffset.set(message.topic, Math.max(this.highestOffset.get(message.topic) ?? -1, message.offset));
      }
      const answer = batch ? { acknowledgements: messages.map(() => ({ acknowledgement: 'ACK' })) } : { acknowledgement: 'ACK' };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
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
