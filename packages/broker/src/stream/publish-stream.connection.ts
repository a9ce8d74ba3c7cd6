import type { Socket } from 'node:net';
import {
  Acknowledgement,
  BrokerAcknowledgement,
  decodeStreamRequest,
  encodeStreamReply,
  InvalidMessageError,
  PublishBatchResponse,
  PublishedMessage,
  PublishResponse,
  StreamFrameReader,
  StreamFrameTooLargeError,
  StreamRequest,
  StreamRequestKind,
} from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { toNackResponse } from '../http/nack-response';
import { PublishIntake } from '../publish/publish-intake';
import { PayloadTooLargeError, StreamFencedError } from '../publish/publish.errors';
import { PublishRequestParser } from '../publish/publish-request.parser';
import type { PublishableMessage } from '../format/publishable-message';
import { Authenticator } from '../security/authenticator';
import { StreamHandshake } from './stream-handshake';

/** Bytes of a request frame after its length prefix besides the body: request id and kind. */
const REQUEST_HEADER_BYTES = 5;
/**
 * Requests received but not yet answered before the broker stops reading the connection (TCP then pushes back on
 * the producer); reading resumes once half of them are answered.
 */
export const STREAM_MAX_UNANSWERED = 1024;
const OK = 200;
const TOO_MANY_REQUESTS = 429;

/**
 * Refusals a retry could fix — a 5xx, or a 429 (a full backlog or topic) — fence the connection: the producer resends
 * the refused request and everything after it, so nothing it sent later lands in front of it.
 */
function fences(status: number): boolean {
  return status >= 500 || status === TOO_MANY_REQUESTS;
}

/**
 * One producer's publish stream. Requests are put in their topics' order strictly in the order they arrived,
 * each as soon as the one before it has its place (not once it is durable), so a producer can keep many in
 * flight and still have them stored in the order it sent them. Each is answered like HTTP: once durable when
 * persistent, as soon as it has its place when nonPersistent.
 *
 * Once a request fails for a reason a retry could fix (a storage failure, a 5xx, a 429), every later request on this
 * connection is refused with 503 without being stored: the producer resends the failed one and everything after
 * it, in order, and nothing it sent later can land in front of the resent one.
 *
 * Nothing is stored before the {@link StreamHandshake} knows who the connection speaks for; every publish is then
 * checked against that token's role and topics.
 */
/** A publish-stream connection as the console's members page lists it. */
export interface StreamConnectionView {
  /** The client's address and port. */
  peer: string;
  openedAt: string;
  /** The token's name once authenticated (or the loopback principal when authentication is off); absent before. */
  client?: string;
  /** Publish requests received. */
  requests: number;
  /** Received and not answered yet. */
  unanswered: number;
  /** Requests answered with an error, and the last of those errors. */
  failures: number;
  lastError?: string;
  lastErrorAt?: string;
  /** An earlier publish failed, so the connection refuses the rest (the client resends on a new one). */
  fenced: boolean;
}

export class PublishStreamConnection {
  private readonly logger = new Logger(PublishStreamConnection.name);
  private readonly reader: StreamFrameReader;
  private readonly handshake: StreamHandshake;
  private ordering: Promise<void> = Promise.resolve();
  private fencedBy?: string;
  private unanswered = 0;
  private waitingForAnswers: Array<() => void> = [];
  private closing = false;
  private refusing = false;
  private readonly openedAt = Date.now();
  /** Publish requests received (AUTH frames aside). */
  private requests = 0;
  /** Requests answered with an error. */
  private failures = 0;
  private lastError?: { message: string; at: number };

  constructor(
    private readonly socket: Socket,
    private readonly parser: PublishRequestParser,
    private readonly intake: PublishIntake,
    private readonly maxBodyBytes: number,
    authenticator: Authenticator,
    /** Time to send the preamble and, with tokens, to authenticate; `http.headersTimeoutMs`. */
    handshakeTimeoutMs: number,
  ) {
    this.reader = new StreamFrameReader(maxBodyBytes + REQUEST_HEADER_BYTES);
    this.handshake = new StreamHandshake(authenticator, socket.remoteAddress, handshakeTimeoutMs, (missing) => {
      this.logger.debug(`Publish stream ${this.peer} sent no ${missing} within ${handshakeTimeoutMs} ms; closing it`);
      socket.destroy();
    });
    socket.once('close', () => this.handshake.dispose());
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (error) => this.logger.debug(`Publish stream ${this.peer}: ${error.message}`));
  }

  /** Resolves once every request received so far is answered (or the socket is gone). */
  whenAnswered(): Promise<void> {
    if (this.unanswered === 0 || this.socket.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      this.waitingForAnswers.push(resolve);
      this.socket.once('close', resolve);
    });
  }

  /** Stops reading for good; requests already received are still answered. */
  stopReading(): void {
    this.closing = true;
    this.socket.pause();
  }

  destroy(): void {
    this.socket.destroy();
  }

  /** What the console shows of this connection. */
  view(): StreamConnectionView {
    return {
      peer: this.peer,
      openedAt: new Date(this.openedAt).toISOString(),
      client: this.handshake.principal?.name,
      requests: this.requests,
      unanswered: this.unanswered,
      failures: this.failures,
      lastError: this.lastError?.message,
      lastErrorAt: this.lastError && new Date(this.lastError.at).toISOString(),
      fenced: this.fencedBy !== undefined,
    };
  }

  private get peer(): string {
    return `${this.socket.remoteAddress}:${this.socket.remotePort}`;
  }

  private receive(chunk: Buffer): void {
    const frames = this.handshake.readPreamble(chunk);
    if (frames === null) return this.protocolError('a connection that did not start with the MMMQ stream preamble (version 1)');
    if (frames === undefined) return;
    let received: Buffer[];
    try {
      received = this.reader.push(frames);
    } catch (error) {
      if (!(error instanceof StreamFrameTooLargeError)) throw error;
      this.refuseAndClose(error);
      return;
    }
    for (const frame of received) {
      const request = decodeStreamRequest(frame);
      if (request === undefined) return this.protocolError('a request frame shorter than its header');
      this.unanswered++;
      this.ordering = this.ordering.then(() => this.handle(request));
    }
    if (this.unanswered >= STREAM_MAX_UNANSWERED) this.socket.pause();
  }

  /** Puts the request in its topic's order, then answers it (when durable, if persistent). Never rejects. */
  private async handle(request: StreamRequest): Promise<void> {
    if (request.kind === StreamRequestKind.AUTH) return this.authenticate(request);
    this.requests++;
    if (this.handshake.principal === undefined) return this.refuseUnauthenticated(request.requestId);
    if (this.fencedBy !== undefined) {
      this.answerError(request.requestId, new StreamFencedError(this.fencedBy));
      return;
    }
    let acknowledged: Promise<PublishedMessage[]>;
    try {
      ({ acknowledged } = await this.intake.enqueue(this.parse(request)));
    } catch (error) {
      this.answerError(request.requestId, error);
      return;
    }
    acknowledged.then(
      (published) => this.answer(request.requestId, OK, acknowledge(request.kind, published)),
      (error: unknown) => this.answerError(request.requestId, error),
    );
  }

  /** Nothing of a connection is stored before it authenticated; a refusal closes it once everything is answered. */
  private authenticate(request: StreamRequest): void {
    try {
      this.handshake.authenticate(request.body.length === 0 ? undefined : request.body.toString('utf8'));
    } catch (error) {
      this.answerError(request.requestId, error);
      this.closeOnceAnswered();
      return;
    }
    this.answer(request.requestId, OK, { acknowledgement: Acknowledgement.ACK });
  }

  private refuseUnauthenticated(requestId: number): void {
    this.answerError(requestId, this.handshake.refusal());
    this.closeOnceAnswered();
  }

  private closeOnceAnswered(): void {
    if (this.refusing) return;
    this.refusing = true;
    this.stopReading();
    void this.whenAnswered().then(() => void this.socket.end());
  }

  private parse(request: StreamRequest): PublishableMessage[] {
    const messages = this.parseKind(request);
    this.handshake.principal!.assertMayPublish(messages.map((message) => message.topic));
    return messages;
  }

  private parseKind(request: StreamRequest): PublishableMessage[] {
    if (request.kind === StreamRequestKind.PUBLISH) return [this.parser.parseSingle(request.body)];
    if (request.kind === StreamRequestKind.PUBLISH_BATCH) return this.parser.parseBatch(request.body);
    throw new InvalidMessageError(`Unknown request kind ${request.kind}; 1 is a publish, 2 a batch publish, 3 an AUTH`);
  }

  private answerError(requestId: number, error: unknown): void {
    const nack = toNackResponse(error);
    this.failures++;
    this.lastError = { message: nack.message, at: Date.now() };
    if (nack.unexpected) this.logger.error(`Publish stream ${this.peer}: ${(error as Error)?.message}`, (error as Error)?.stack);
    if (fences(nack.status) && this.fencedBy === undefined) this.fencedBy = nack.message;
    const body: BrokerAcknowledgement = {
      acknowledgement: Acknowledgement.NACK,
      message: nack.message,
      retryAfterSeconds: nack.retryAfterSeconds,
    };
    this.answer(requestId, nack.status, body);
  }

  private answer(requestId: number, status: number, body: BrokerAcknowledgement | PublishResponse | PublishBatchResponse): void {
    if (!this.socket.destroyed) {
      this.socket.write(encodeStreamReply({ requestId, status, body: Buffer.from(JSON.stringify(body)) }));
    }
    this.unanswered--;
    if (this.unanswered === STREAM_MAX_UNANSWERED / 2 && !this.closing) this.socket.resume();
    if (this.unanswered === 0) for (const resolve of this.waitingForAnswers.splice(0)) resolve();
  }

  /** A frame over the limit cannot be skipped safely: it is refused with 413 and the connection closed. */
  private refuseAndClose(error: StreamFrameTooLargeError): void {
    this.stopReading();
    const tooLarge = new PayloadTooLargeError(
      `Request of ${error.length - REQUEST_HEADER_BYTES} bytes exceeds the limit of ${this.maxBodyBytes} bytes; ` +
        'the connection is closed',
    );
    this.unanswered++;
    this.ordering = this.ordering.then(() => {
      this.answerError(error.requestId, tooLarge);
      return this.whenAnswered().then(() => void this.socket.end());
    });
  }

  private protocolError(what: string): void {
    this.logger.warn(`Publish stream ${this.peer} sent ${what}; closing the connection`);
    this.socket.destroy();
  }
}

function acknowledge(kind: StreamRequestKind, published: PublishedMessage[]): PublishResponse | PublishBatchResponse {
  if (kind === StreamRequestKind.PUBLISH) return { acknowledgement: Acknowledgement.ACK, ...published[0] };
  return { acknowledgement: Acknowledgement.ACK, messages: published };
}
