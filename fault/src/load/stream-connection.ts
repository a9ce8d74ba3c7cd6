import { connect, Socket } from 'node:net';

/**
 * A client of the publish stream written from docs/stream-protocol.md, not from `@mmmq/core`'s codec:
 * preamble `MMMQ\x01`; requests `[u32 length][u32 requestId][u8 kind][body]`; answers
 * `[u32 length][u32 requestId][u16 status][body]`.
 */
export const STREAM_PREAMBLE = Buffer.from('MMMQ\x01', 'latin1');
export const KIND_PUBLISH = 1;
export const KIND_PUBLISH_BATCH = 2;

export interface StreamAnswer {
  status: number;
  body: string;
}

/** One connection; every request resolves with its answer or rejects when the connection ends first. */
export class StreamConnection {
  private readonly waiting = new Map<number, { resolve(answer: StreamAnswer): void; reject(error: Error): void }>();
  private buffered: Buffer = Buffer.alloc(0);
  private nextId = 0;
  private closedBy?: Error;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (error) => this.close(error));
    socket.on('close', () => this.close(new Error('The stream connection closed')));
  }

  static open(url: string, timeoutMs: number): Promise<StreamConnection> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port) });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`No stream connection within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.setNoDelay(true);
        socket.write(STREAM_PREAMBLE);
        resolve(new StreamConnection(socket));
      });
    });
  }

  get open(): boolean {
    return this.closedBy === undefined;
  }

  get pending(): number {
    return this.waiting.size;
  }

  send(kind: number, body: string): Promise<StreamAnswer> {
    if (this.closedBy) return Promise.reject(this.closedBy);
    const requestId = this.nextId++;
    const bodyBytes = Buffer.from(body, 'utf8');
    const frame = Buffer.allocUnsafe(9 + bodyBytes.length);
    frame.writeUInt32BE(5 + bodyBytes.length, 0);
    frame.writeUInt32BE(requestId, 4);
    frame.writeUInt8(kind, 8);
    bodyBytes.copy(frame, 9);
    return new Promise((resolve, reject) => {
      this.waiting.set(requestId, { resolve, reject });
      this.socket.write(frame);
    });
  }

  destroy(): void {
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    while (this.buffered.length >= 4) {
      const length = this.buffered.readUInt32BE(0);
      if (this.buffered.length < 4 + length) return;
      const frame = this.buffered.subarray(4, 4 + length);
      this.buffered = this.buffered.subarray(4 + length);
      const requestId = frame.readUInt32BE(0);
      const answer = { status: frame.readUInt16BE(4), body: frame.subarray(6).toString('utf8') };
      const waiter = this.waiting.get(requestId);
      if (!waiter) {
        this.close(new Error(`The broker answered request ${requestId}, which is not waiting`));
        return;
      }
      this.waiting.delete(requestId);
      waiter.resolve(answer);
    }
  }

  private close(error: Error): void {
    this.closedBy ??= error;
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
    this.socket.destroy();
  }
}
