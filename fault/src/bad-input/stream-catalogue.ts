import type { Chunk } from './raw-exchange';

/** A hostile publish-stream connection: the bytes sent, and how many answers complete frames deserve. */
export interface StreamCase {
  name: string;
  chunks: Chunk[];
  /** Answers expected (one per complete request frame); 0 when the broker should just close. */
  replies: number;
  /** We give up and close after the bytes are sent (an incomplete frame may be waited for forever). */
  clientCloses?: boolean;
}

const PREAMBLE = Buffer.from('MMMQ\x01', 'latin1');

function frame(requestId: number, kind: number, body: string | Buffer, declaredLength?: number): Buffer {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const head = Buffer.alloc(9);
  head.writeUInt32BE(declaredLength ?? 5 + bytes.length, 0);
  head.writeUInt32BE(requestId, 4);
  head.writeUInt8(kind, 8);
  return Buffer.concat([head, bytes]);
}

/** Every case sends nothing a broker may store. */
export function streamCatalogue(topic: string): StreamCase[] {
  const publish = `{"topic":"${topic}","content":1}`;
  const cases: Array<[string, Buffer[], number, boolean?]> = [
    ['an HTTP request instead of the preamble', [Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n')], 0],
    ['protocol version 2', [Buffer.from('MMMQ\x02', 'latin1'), frame(1, 1, publish)], 0],
    ['zeros instead of the preamble', [Buffer.alloc(64)], 0],
    ['half a preamble, then nothing', [Buffer.from('MM')], 0, true],
    ['frame length 0', [PREAMBLE, Buffer.from([0, 0, 0, 0, 0, 0, 0, 1])], 0],
    ['frame length 3', [PREAMBLE, Buffer.from([0, 0, 0, 3, 0, 0, 0, 1, 1, 1, 1])], 0],
    ['kind 0', [PREAMBLE, frame(1, 0, publish)], 1],
    // Kind 3 is AUTH, answered 200 on loopback without tokens (docs/stream-protocol.md).
    ['kind 4', [PREAMBLE, frame(1, 4, publish)], 1],
    ['kind 255', [PREAMBLE, frame(1, 255, publish)], 1],
    ['malformed JSON', [PREAMBLE, frame(1, 1, '{"topic":')], 1],
    ['invalid UTF-8', [PREAMBLE, frame(1, 1, Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))], 1],
    ['empty body', [PREAMBLE, frame(1, 1, '')], 1],
    ['topic ..', [PREAMBLE, frame(1, 1, '{"topic":"..","content":1}')], 1],
    ['topic traversal', [PREAMBLE, frame(1, 1, '{"topic":"../../x","content":1}')], 1],
    ['reserved topic', [PREAMBLE, frame(1, 1, '{"topic":"__dlq.x","content":1}')], 1],
    [
      'content nested 100000 levels',
      [PREAMBLE, frame(1, 1, `{"topic":"${topic}","content":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)],
      1,
    ],
    [
      'batch spanning two topics, the second invalid',
      [PREAMBLE, frame(1, 2, `{"messages":[${publish},{"topic":"${topic}..2","content":1}]}`)],
      1,
    ],
    ['empty batch', [PREAMBLE, frame(1, 2, '{"messages":[]}')], 1],
    ['batch kind with a single message', [PREAMBLE, frame(1, 2, publish)], 1],
    ['single kind with a batch', [PREAMBLE, frame(1, 1, `{"messages":[${publish}]}`)], 1],
    ['frame announcing 4 GiB', [PREAMBLE, frame(1, 1, publish, 0xffffffff)], 1],
    ['frame one byte over the body limit', [PREAMBLE, frame(1, 1, Buffer.alloc(2 ** 20 + 1, 0x20))], 1],
    ['truncated frame, then the client closes', [PREAMBLE, frame(1, 1, publish, 500)], 0, true],
    ['1000 malformed frames back to back', [PREAMBLE, Buffer.concat(Array.from({ length: 1000 }, (_, i) => frame(i, 1, '{')))], 1000],
    ['one request id used twice', [PREAMBLE, frame(7, 1, '{'), frame(7, 1, '[')], 2],
  ];
  return cases.map(([name, parts, replies, clientCloses]) => ({
    name,
    chunks: parts.map((bytes) => ({ bytes })),
    replies,
    clientCloses,
  }));
}

/** Reply frames in `received`: `[u32 length][u32 requestId][u16 status][body]`. */
export function replyStatuses(received: Buffer): number[] {
  const statuses: number[] = [];
  let at = 0;
  while (at + 10 <= received.length) {
    const length = received.readUInt32BE(at);
    if (at + 4 + length > received.length) break;
    statuses.push(received.readUInt16BE(at + 8));
    at += 4 + length;
  }
  return statuses;
}
