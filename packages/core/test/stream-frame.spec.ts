import {
  decodeStreamReply,
  decodeStreamRequest,
  encodeStreamReply,
  encodeStreamRequest,
  StreamFrameReader,
  StreamFrameTooLargeError,
  StreamRequestKind,
} from '../src';

describe('publish stream frames', () => {
  const request = (requestId: number, text: string) => encodeStreamRequest(requestId, StreamRequestKind.PUBLISH_BATCH, [text]);

  it('round-trips requests and replies', () => {
    const reader = new StreamFrameReader(1024);
    const [frame] = reader.push(request(7, '{"messages":[]}'));
    expect(decodeStreamRequest(frame)).toEqual({
      requestId: 7,
      kind: StreamRequestKind.PUBLISH_BATCH,
      body: Buffer.from('{"messages":[]}'),
    });
    const [reply] = new StreamFrameReader(1024).push(encodeStreamReply({ requestId: 2 ** 32 - 1, status: 503, body: Buffer.from('{}') }));
    expect(decodeStreamReply(reply)).toEqual({ requestId: 2 ** 32 - 1, status: 503, body: Buffer.from('{}') });
  });

  it('encodes a body given in parts as the UTF-8 of the joined text', () => {
    const parts = ['{"messages":[', '{"content":"ünïcødé ✓"}', ',{"content":1}', ']}'];
    const [frame] = new StreamFrameReader(1024).push(encodeStreamRequest(3, StreamRequestKind.PUBLISH_BATCH, parts));
    expect(decodeStreamRequest(frame)!.body).toEqual(Buffer.from(parts.join('')));
  });

  it('reassembles frames split anywhere, including inside the length prefix, and several in one chunk', () => {
    const bytes = Buffer.concat([request(1, 'a'), request(2, 'bb'), request(3, 'x'.repeat(300))]);
    for (const step of [1, 2, 3, 5, 7, 64, bytes.length]) {
      const reader = new StreamFrameReader(1024);
      const frames: Buffer[] = [];
      for (let at = 0; at < bytes.length; at += step) frames.push(...reader.push(bytes.subarray(at, at + step)));
      expect(frames.map((frame) => decodeStreamRequest(frame)!.body.toString())).toEqual(['a', 'bb', 'x'.repeat(300)]);
    }
  });

  it('refuses a frame longer than the limit as soon as its length and request id are known', () => {
    const reader = new StreamFrameReader(100);
    const frame = request(42, 'y'.repeat(200));
    expect(reader.push(frame.subarray(0, 7))).toEqual([]);
    let error: unknown;
    try {
      reader.push(frame.subarray(7, 9));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StreamFrameTooLargeError);
    expect(error).toMatchObject({ requestId: 42, length: 205, limit: 100 });
  });

  it('reads a frame too short for its header as undefined', () => {
    expect(decodeStreamRequest(Buffer.from([0, 0, 0, 1]))).toBeUndefined();
    expect(decodeStreamReply(Buffer.from([0, 0, 0, 1, 0]))).toBeUndefined();
  });
});
