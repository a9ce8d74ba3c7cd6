import { connect, isIP, Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import {
  decodeStreamReply,
  encodeStreamRequest,
  PublishedMessage,
  publishBatchBody,
  publishBody,
  SECURE_STREAM_URL_PROTOCOL,
  STREAM_PREAMBLE,
  StreamFrameReader,
  StreamRequestKind,
  TransportPublisher,
} from '@mmmq/core';
import { BrokerUnreachableError } from '../errors/broker-unreachable.error';
import type { OutgoingMessage } from '../outgoing-message';
import type { BrokerAccess } from './broker-access';
import { BrokerReply, readBatchReply, readPublishReply } from './broker-reply';

/** A reply is a small acknowledgement (a batch's lists every id); anything this long is not one. */
const MAX_REPLY_BYTES = 16 * 1024 * 1024;
const REQUEST_ID_LIMIT = 2 ** 32;
/** A full backlog or topic: like a 5xx, it fences the connection (the broker refuses the requests after it). */
const HTTP_TOO_MANY_REQUESTS = 429;

interface PendingRequest {
  socket: Socket;
  resolve: (reply: BrokerReply) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * The MMMQ broker's publisher over its publish stream (`mmmq://host:port`, docs/stream-protocol.md): one TCP connection,
 * requests written back to back without waiting for answers. The broker stores them in the order they were
 * written, so several batches of a topic can be in flight and still land in call order.
 *
 * Any failure — a NACK the broker would let a retry fix, a timeout, a lost connection — increments
 * {@link failures} before the caller hears of it, and a timeout or a lost connection fails every request still
 * waiting on that connection: the producer then stops sending new batches of the topic until the failed ones are
 * resent in order. After a 5xx or 429 answer the broker refuses everything else on that connection (it is fenced), so
 * later requests go on a new one; the old one closes once its last request is answered.
 */
export class StreamBrokerPublisher implements TransportPublisher {
  private readonly host: string;
  private readonly port: number;
  private readonly secure: boolean;
  private socket?: Socket;
  private readonly pending = new Map<number, PendingRequest>();
  /** Requests waiting, per connection: the current one and those retired after a 5xx until they are answered. */
  private readonly waiting = new Map<Socket, number>();
  private nextRequestId = 0;
  private failureCount = 0;
  private closed = false;

  /**
   * @param broker `mmmq://host:port`, or `mmmqs://host:port` over TLS
   * @param timeoutMs deadline of one request, from writing it to reading its answer
   * @param access the token sent as the first request of every connection (AUTH), and the certificates to trust
   *   for an `mmmqs://` broker
   */
  constructor(
    private readonly broker: string,
    private readonly timeoutMs: number,
    private readonly access: BrokerAccess = {},
  ) {
    const url = new URL(broker);
    this.secure = url.protocol === SECURE_STREAM_URL_PROTOCOL;
    this.host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    this.port = Number(url.port);
  }

  /** Failures seen so far; a change tells the producer that requests after the failed one may fail too. */
  get failures(): number {
    return this.failureCount;
  }

  async publish(message: OutgoingMessage): Promise<PublishedMessage> {
    return readPublishReply(await this.request(StreamRequestKind.PUBLISH, [publishBody(message)]), message);
  }

  async publishBatch(messages: readonly OutgoingMessage[]): Promise<PublishedMessage[]> {
    return readBatchReply(await this.request(StreamRequestKind.PUBLISH_BATCH, publishBatchBody(messages)), messages);
  }

  close(): Promise<void> {
    this.closed = true;
    this.socket?.destroy();
    // Retired connections too: their 'close' fails what still waits on them.
    for (const socket of this.waiting.keys()) socket.destroy();
    return Promise.resolve();
  }

  /** Sends the UTF-8 of `body` joined as one request. */
  private request(kind: StreamRequestKind, body: readonly string[]): Promise<BrokerReply> {
    if (this.closed) return Promise.reject(new BrokerUnreachableError(`The connection to ${this.broker} is closed`));
    return this.send(this.connection(), kind, body);
  }

  private send(socket: Socket, kind: StreamRequestKind, body: readonly string[]): Promise<BrokerReply> {
    const requestId = this.nextRequestId;
    this.nextRequestId = (this.nextRequestId + 1) % REQUEST_ID_LIMIT;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.lose(socket, `no answer within ${this.timeoutMs} ms`), this.timeoutMs);
      this.pending.set(requestId, { socket, resolve, reject, timer });
      this.waiting.set(socket, (this.waiting.get(socket) ?? 0) + 1);
      socket.ref();
      socket.write(encodeStreamRequest(requestId, kind, body));
    });
  }

  /**
   * Authenticates a new connection without waiting: the broker handles requests in the order written, so the
   * publishes written right behind the AUTH are judged by it. A refused token fails them with the broker's 401.
   */
  private authenticate(socket: Socket, token: string): void {
    this.send(socket, StreamRequestKind.AUTH, [token]).catch(() => undefined);
  }

  private connection(): Socket {
    if (this.socket && !this.socket.destroyed) return this.socket;
    const { host, port } = this;
    // SNI takes a host name only; a certificate for an IP address is matched without it.
    const socket = this.secure
      ? connectTls({ host, port, ca: this.access.tls?.ca, servername: isIP(host) ? undefined : host })
      : connect({ host, port });
    socket.setNoDelay(true);
    socket.write(STREAM_PREAMBLE);
    const reader = new StreamFrameReader(MAX_REPLY_BYTES);
    socket.on('data', (chunk: Buffer) => {
      try {
        for (const frame of reader.push(chunk)) this.answer(socket, frame);
      } catch (error) {
        this.lose(socket, (error as Error).message);
      }
    });
    socket.on('error', (error) => this.lose(socket, describeNetworkError(error)));
    socket.on('close', () => this.lose(socket, 'the broker closed the connection'));
    this.socket = socket;
    if (this.access.token !== undefined) this.authenticate(socket, this.access.token);
    return socket;
  }

  private answer(socket: Socket, frame: Buffer): void {
    const reply = decodeStreamReply(frame);
    const pending = reply && this.pending.get(reply.requestId);
    if (!reply || !pending || pending.socket !== socket) return this.lose(socket, 'an answer to no request it was sent');
    this.pending.delete(reply.requestId);
    this.answered(socket);
    clearTimeout(pending.timer);
    if (reply.status >= 500 || reply.status === HTTP_TOO_MANY_REQUESTS) {
      this.failureCount++;
      // Fenced: the broker refuses every later request on this connection, so the next ones open a new one.
      if (socket === this.socket) this.socket = undefined;
    }
    if (!this.waiting.has(socket)) {
      if (socket === this.socket) socket.unref();
      else socket.destroy();
    }
    pending.resolve({ url: this.broker, status: reply.status, body: reply.body.toString('utf8'), retryAfter: undefined });
  }

  /** Fails every request waiting on `socket`, which is given up, after counting the failure. */
  private lose(socket: Socket, what: string): void {
    if (socket === this.socket) this.socket = undefined;
    socket.destroy();
    if (!this.waiting.delete(socket)) return;
    this.failureCount++;
    const error = new BrokerUnreachableError(`Could not reach the broker at ${this.broker}: ${what}`);
    for (const [requestId, pending] of this.pending) {
      if (pending.socket !== socket) continue;
      this.pending.delete(requestId);
      clearTimeout(pending.timer);
      pending.reject(error);
    }
  }

  /** One request fewer waits on `socket`. */
  private answered(socket: Socket): void {
    const left = (this.waiting.get(socket) ?? 1) - 1;
    if (left === 0) this.waiting.delete(socket);
    else this.waiting.set(socket, left);
  }
}

function describeNetworkError(error: Error): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
}
