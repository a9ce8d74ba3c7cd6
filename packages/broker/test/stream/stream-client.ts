import { connect, Socket } from 'node:net';
import { decodeStreamReply, encodeStreamRequest, STREAM_PREAMBLE, StreamFrameReader, StreamRequestKind } from '@mmmq/core';
import { PublishStreamServer } from '../../src';
import type { BrokerApp } from '../http/broker-app.fixture';

/** A reply as the test sees it: status and parsed JSON body. */
export interface StreamAnswer {
  status: number;
  // Tests read whatever JSON came back.
  body: any;
}

/** A bare publish-stream client: writes frames as told and collects the answers by request id. */
export class StreamClient {
  readonly socket: Socket;
  private readonly answers = new Map<number, StreamAnswer>();
  private readonly waiters = new Map<number, (answer: StreamAnswer) => void>();
  readonly closed: Promise<void>;

  private constructor(port: number, preamble: Buffer, host: string) {
    this.socket = connect({ host, port });
    this.socket.write(preamble);
    const reader = new StreamFrameReader(16 * 1024 * 1024);
    this.socket.on('data', (chunk: Buffer) => {
      for (const frame of reader.push(chunk)) {
        const reply = decodeStreamReply(frame)!;
        const answer = { status: reply.status, body: JSON.parse(reply.body.toString('utf8')) };
        this.answers.set(reply.requestId, answer);
        this.waiters.get(reply.requestId)?.(answer);
      }
    });
    this.socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  static connect(broker: BrokerApp, preamble: Buffer = STREAM_PREAMBLE, host = '127.0.0.1'): StreamClient {
    return new StreamClient(broker.app.get(PublishStreamServer).address()!.port, preamble, host);
  }

  send(requestId: number, body: unknown, kind: StreamRequestKind = StreamRequestKind.PUBLISH): void {
    this.socket.write(frame(requestId, body, kind));
  }

  /** Writes single publishes with ids `first`, `first + 1`, … in one write, so they arrive together. */
  sendAll(first: number, bodies: unknown[]): void {
    this.socket.write(Buffer.concat(bodies.map((body, i) => frame(first + i, body, StreamRequestKind.PUBLISH))));
  }

  answer(requestId: number): Promise<StreamAnswer> {
    const known = this.answers.get(requestId);
    if (known) return Promise.resolve(known);
    return new Promise((resolve) => this.waiters.set(requestId, resolve));
  }

  close(): void {
    this.socket.destroy();
  }
}

function frame(requestId: number, body: unknown, kind: StreamRequestKind): Buffer {
  return encodeStreamRequest(requestId, kind, [typeof body === 'string' ? body : JSON.stringify(body)]);
}

/** Broker options that turn the stream on, on a free port. */
export const STREAM_ON = { stream: { port: 0 } };
