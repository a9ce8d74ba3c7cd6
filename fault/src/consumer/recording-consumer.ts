import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { nextPort } from '../harness/port-range';

/** One message a push brought. */
export interface PushedMessage {
  /** The subscription's consumer id: the push's `mmmq-consumer-id`, or its part's in a shared push. */
  consumerId: string;
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
/** The shared-push route and opt-in header, as docs/http-api.md ("Shared pushes") names them. */
const SHARED_PATH = '/mmmq/messages/shared';
const SHARED_PUSH_HEADER = 'mmmq-shared-push';
/** Lines of a streamed reply written per turn of the event loop: a kill can land between two writes of one push. */
const STREAM_LINES_PER_WRITE = 10;
/**
 * With {@link RecordingConsumerOptions.partialSettlement}: every this many parts of shared pushes, a part has only its
 * first half acknowledged and the rest refused with a `503` line (not taken: the broker sends it again, uncounted).
 */
const PARTIAL_PART_EVERY = 3;

export interface RecordingConsumerOptions {
  /**
   * Opt in to shared pushes (`mmmq-shared-push: 1` on every answer): the broker then sends the windows of all the
   * subscriptions pushing to this host in one `POST /mmmq/messages/shared` (docs/http-api.md, "Shared pushes").
   */
  shared?: boolean;
  /** Refuse part of some shared pushes' parts (see {@link PARTIAL_PART_EVERY}). */
  partialSettlement?: boolean;
}

/** One part of a shared push as parsed: its subscription's messages. */
interface SharedPart {
  messages: PushedMessage[];
}

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
  /** Parts of shared pushes received: every {@link PARTIAL_PART_EVERY}th is settled only in part. */
  private sharedParts = 0;
  /** Messages a `503` line refused (each was received, and is sent again). */
  refusedInPart = 0;
  /** Shared pushes received. */
  sharedPushes = 0;

  constructor(
    private readonly inspect: DeliveryInspection = () => undefined,
    private readonly options: RecordingConsumerOptions = {},
  ) {}

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
      if (this.options.shared) response.setHeader(SHARED_PUSH_HEADER, '1');
      const epoch = this.connectionEpochs.get(request.socket) ?? this.epoch;
      if (request.url === SHARED_PATH) {
        const parts = this.parseShared(body);
        if (!parts) return this.refuseMalformed(body, response);
        this.sharedPushes++;
        return this.streamShared(
          parts.map((part) => this.record(part.messages, body, epoch)),
          response,
        );
      }
      const batch = request.url === '/mmmq/messages/batch';
      const consumerId = String(request.headers['mmmq-consumer-id']);
      const messages = this.parse(body, batch, consumerId);
      if (!messages) return this.refuseMalformed(body, response);
      const received = this.record(messages, body, epoch);
      if (batch && String(request.headers.accept ?? '').includes('application/x-ndjson')) return this.stream(received, response);
      const answer = batch ? { acknowledgements: messages.map(() => ({ acknowledgement: 'ACK' })) } : { acknowledgement: 'ACK' };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      this.settled(received);
    });
  }

  private refuseMalformed(body: Buffer, response: http.ServerResponse): void {
    this.malformed.push(body.subarray(0, 200).toString('utf8'));
    response.writeHead(400, { 'content-type': 'application/json' }).end('{"acknowledgement":"NACK","retry":false}');
  }

  private record(messages: readonly PushedMessage[], body: Buffer, epoch: number): Delivery[] {
    return messages.map((message) => {
      const delivery: Delivery = { ...message, epoch, seq: ++this.seq, problem: this.inspect(message, body) };
      this.deliveries.push(delivery);
      this.highestOffset.set(message.topic, Math.max(this.highestOffset.get(message.topic) ?? -1, message.offset));
      return delivery;
    });
  }

  /**
   * Answers a shared push line by line, a few lines a turn: every message ACKed, except in a part settled only in
   * part, where a `503` line refuses the second half (docs/http-api.md, "Shared pushes").
   */
  private streamShared(parts: Delivery[][], response: http.ServerResponse): void {
    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const lines: Array<{ line: string; settles?: Delivery }> = [];
    parts.forEach((part, p) => {
      const partial = this.options.partialSettlement && ++this.sharedParts % PARTIAL_PART_EVERY === 0 && part.length > 1;
      const acked = partial ? Math.ceil(part.length / 2) : part.length;
      for (let i = 0; i < acked; i++) lines.push({ line: `{"part":${p},"index":${i},"acknowledgement":"ACK"}\n`, settles: part[i] });
      if (acked < part.length) {
        this.refusedInPart += part.length - acked;
        lines.push({ line: `{"part":${p},"status":503,"message":"not taken (the fault suite's partial settlement)"}\n` });
      }
    });
    const next = (from: number) => {
      if (response.destroyed) return;
      const chunk = lines.slice(from, from + STREAM_LINES_PER_WRITE);
      response.write(chunk.map(({ line }) => line).join(''));
      this.settled(chunk.flatMap(({ settles }) => (settles ? [settles] : [])));
      if (from + chunk.length < lines.length) setImmediate(() => next(from + chunk.length));
      else response.end();
    };
    next(0);
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

  private parse(body: Buffer, batch: boolean, consumerId: string): PushedMessage[] | undefined {
    const value = parseJson(body);
    return messagesOf(batch ? (value as { messages?: unknown } | null)?.messages : [value], consumerId);
  }

  /** `{"parts":[{"consumerId","topic","messages":[…]}, …]}`; undefined when it is not that. */
  private parseShared(body: Buffer): SharedPart[] | undefined {
    const parts = (parseJson(body) as { parts?: unknown } | null)?.parts;
    if (!Array.isArray(parts) || parts.length === 0) return undefined;
    const parsed: SharedPart[] = [];
    for (const part of parts) {
      const { consumerId, messages } = (part ?? {}) as Record<string, unknown>;
      const list = typeof consumerId === 'string' ? messagesOf(messages, consumerId) : undefined;
      if (!list) return undefined;
      parsed.push({ messages: list });
    }
    return parsed;
  }
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function messagesOf(list: unknown, consumerId: string): PushedMessage[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const messages: PushedMessage[] = [];
  for (const item of list) {
    const { id, topic, offset, redelivered } = (item ?? {}) as Record<string, unknown>;
    if (typeof id !== 'string' || typeof topic !== 'string' || typeof offset !== 'number') return undefined;
    messages.push({ consumerId, id, topic, offset, redelivered: redelivered === true });
  }
  return messages;
}
