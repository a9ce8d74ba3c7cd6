import { MmmqError } from '../errors/mmmq-error';

/**
 * The publish stream (docs/stream-protocol.md): one TCP connection, length-prefixed frames both ways. The client
 * opens with {@link STREAM_PREAMBLE}; then every request is a {@link StreamRequest} and every answer a
 * {@link StreamReply} with the same `requestId`. Bodies are the JSON of the HTTP publish endpoints and their
 * answers, so the two transports share one contract.
 */

/** `MMMQ` and protocol version 1: the first bytes a client sends. */
export const STREAM_PREAMBLE = Buffer.from([0x4d, 0x4d, 0x4d, 0x51, 0x01]);
/** URL scheme naming a broker's publish stream, as in `mmmq://127.0.0.1:8081`. */
export const STREAM_URL_PROTOCOL = 'mmmq:';
/** URL scheme naming a publish stream over TLS, as in `mmmqs://broker.example:8081`. */
export const SECURE_STREAM_URL_PROTOCOL = 'mmmqs:';

/** What a request frame carries. */
export enum StreamRequestKind {
  /** The body of `POST /mmmq/messages`. */
  PUBLISH = 1,
  /** The body of `POST /mmmq/messages/batch`. */
  PUBLISH_BATCH = 2,
  /**
   * The body is a bearer token (UTF-8), what HTTP sends as `Authorization: Bearer <token>`; answered 200 with
   * `{"acknowledgement":"ACK"}`, or 401 and the connection closed. A broker with tokens configured requires it before
   * anything else; one without answers 200 whatever the token.
   */
  AUTH = 3,
}

/** `[u32 length of what follows][u32 requestId][u8 kind][body]`. */
export interface StreamRequest {
  requestId: number;
  kind: StreamRequestKind;
  body: Buffer;
}

/** `[u32 length of what follows][u32 requestId][u16 status][body]`; status and body as the HTTP endpoint's. */
export interface StreamReply {
  requestId: number;
  status: number;
  body: Buffer;
}

const LENGTH_BYTES = 4;
const REQUEST_HEADER_BYTES = 4 + 1;
const REPLY_HEADER_BYTES = 4 + 2;

/**
 * Encodes a request whose body is the UTF-8 of `parts` joined, written straight into the frame: no joined
 * string, no intermediate buffer.
 */
export function encodeStreamRequest(requestId: number, kind: StreamRequestKind, parts: readonly string[]): Buffer {
  let bodyBytes = 0;
  for (const part of parts) bodyBytes += Buffer.byteLength(part);
  const frame = Buffer.allocUnsafe(LENGTH_BYTES + REQUEST_HEADER_BYTES + bodyBytes);
  frame.writeUInt32BE(REQUEST_HEADER_BYTES + bodyBytes, 0);
  frame.writeUInt32BE(requestId, 4);
  frame.writeUInt8(kind, 8);
  let at = LENGTH_BYTES + REQUEST_HEADER_BYTES;
  for (const part of parts) at += frame.write(part, at, 'utf8');
  return frame;
}

export function encodeStreamReply({ requestId, status, body }: StreamReply): Buffer {
  const frame = Buffer.allocUnsafe(LENGTH_BYTES + REPLY_HEADER_BYTES + body.length);
  frame.writeUInt32BE(REPLY_HEADER_BYTES + body.length, 0);
  frame.writeUInt32BE(requestId, 4);
  frame.writeUInt16BE(status, 8);
  body.copy(frame, 10);
  return frame;
}

/** A frame longer than the reader accepts; the connection cannot be read any further and is closed. */
export class StreamFrameTooLargeError extends MmmqError {
  constructor(
    /** The request id the frame starts with, so the refusal can be answered to it. */
    readonly requestId: number,
    readonly length: number,
    readonly limit: number,
  ) {
    super(`A frame of ${length} bytes exceeds the limit of ${limit} bytes; the connection is closed`);
  }
}

/**
 * Cuts a byte stream into frames. Chunks are kept as they arrive and joined only once a whole frame is there,
 * so a large frame is copied once.
 */
export class StreamFrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** @param maxFrameBytes longest frame accepted, counting everything after the length prefix */
  constructor(private readonly maxFrameBytes: number) {}

  /**
   * Adds received bytes and returns every frame they complete, each as the bytes after its length prefix.
   * @throws StreamFrameTooLargeError when a frame announces more than `maxFrameBytes`
   */
  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Buffer[] = [];
    for (;;) {
      // Every frame starts with its length and a 4-byte request id; both are read before anything else.
      if (this.buffered < LENGTH_BYTES + 4) break;
      const head = this.chunks[0].length >= LENGTH_BYTES + 4 ? this.chunks[0] : this.join();
      const length = head.readUInt32BE(0);
      if (length > this.maxFrameBytes) {
        throw new StreamFrameTooLargeError(head.readUInt32BE(LENGTH_BYTES), length, this.maxFrameBytes);
      }
      if (this.buffered < LENGTH_BYTES + length) break;
      const source = this.chunks[0].length >= LENGTH_BYTES + length ? this.chunks[0] : this.join();
      frames.push(source.subarray(LENGTH_BYTES, LENGTH_BYTES + length));
      const rest = source.subarray(LENGTH_BYTES + length);
      if (rest.length > 0) this.chunks[0] = rest;
      else this.chunks.shift();
      this.buffered -= LENGTH_BYTES + length;
    }
    return frames;
  }

  /** Joins the buffered chunks into the first one; only done when a frame or its prefix spans chunks. */
  private join(): Buffer {
    const all = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [all];
    return all;
  }
}

/** Reads a request frame's fields (the bytes after the length prefix); undefined when it is too short. */
export function decodeStreamRequest(frame: Buffer): StreamRequest | undefined {
  if (frame.length < REQUEST_HEADER_BYTES) return undefined;
  return { requestId: frame.readUInt32BE(0), kind: frame.readUInt8(4), body: frame.subarray(REQUEST_HEADER_BYTES) };
}

/** Reads a reply frame's fields (the bytes after the length prefix); undefined when it is too short. */
export function decodeStreamReply(frame: Buffer): StreamReply | undefined {
  if (frame.length < REPLY_HEADER_BYTES) return undefined;
  return { requestId: frame.readUInt32BE(0), status: frame.readUInt16BE(4), body: frame.subarray(REPLY_HEADER_BYTES) };
}
