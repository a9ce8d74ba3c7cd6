import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { MalformedEnvelopeError } from '../../src/format/format.errors';
import { decodeEnvelope, decodeEnvelopeHead, encodeEnvelope } from '../../src/format/message-envelope';
import { spelledJson } from './json-text.arbitrary';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('message envelope', () => {
  it('stores the fields the broker knows, then the content verbatim', () => {
    const payload = encodeEnvelope({
      id: 'm-1',
      topic: 'order.created',
      publishedAt: 1700000000000,
      headers: { priority: 5, vip: true },
      content: Buffer.from('{ "a" : 1 }'),
    });
    expect(payload.toString()).toBe(
      '{"id":"m-1","topic":"order.created","publishedAt":1700000000000,' + '"headers":{"priority":5,"vip":true},"content":{ "a" : 1 }}',
    );
  });

  it('decodes what it encodes', () => {
    const envelope = {
      id: 'ü-id',
      topic: 'a.b',
      publishedAt: 42,
      headers: { h: 'x"y' },
      content: Buffer.from('"\\u00fc"'),
    };
    expect(decodeEnvelope(encodeEnvelope(envelope))).toEqual(envelope);
  });

  it('stores expiresAt and a priority other than the default before the content, and decodes them', () => {
    const envelope = { id: 'm', topic: 'a', publishedAt: 1, headers: {}, expiresAt: 5000, priority: 9, content: Buffer.from('1') };
    const payload = encodeEnvelope(envelope);
    expect(payload.toString()).toBe('{"id":"m","topic":"a","publishedAt":1,"headers":{},"expiresAt":5000,"priority":9,"content":1}');
    expect(decodeEnvelope(payload)).toEqual(envelope);
  });

  it('decodes a payload it encoded without scanning it, to exactly what scanning a copy of the bytes gives', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            id: fc.string(),
            topic: fc.stringMatching(/^[a-z][a-z.]{0,20}$/),
            publishedAt: fc.nat(),
            headers: fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.oneof(fc.string(), fc.integer(), fc.boolean())),
            expiresAt: fc.nat(),
            priority: fc.integer({ min: 0, max: 9 }),
            // A content is one JSON value without surrounding whitespace, as the publish parser cuts it.
            content: spelledJson().map(({ text }) => Buffer.from(text.trim())),
          },
          { requiredKeys: ['id', 'topic', 'publishedAt', 'headers', 'content'] },
        ),
        (envelope) => {
          const payload = encodeEnvelope(envelope);
          expect(decodeEnvelope(payload)).toEqual(decodeEnvelope(Buffer.from(payload)));
        },
      ),
    );
  });

  it("keeps what it encoded as the bytes say, whatever the producer's headers object becomes", () => {
    const headers: Record<string, string> = { tenant: 'a' };
    const payload = encodeEnvelope({ id: 'm', topic: 'a', publishedAt: 1, headers, content: Buffer.from('1') });
    headers.tenant = 'b';
    expect(decodeEnvelope(payload).headers).toEqual({ tenant: 'a' });
  });

  it('writes neither field when the message never expires and has the default priority: the same bytes as before', () => {
    const payload = encodeEnvelope({ id: 'm', topic: 'a', publishedAt: 1, headers: {}, priority: 4, content: Buffer.from('1') });
    expect(payload.toString()).toBe('{"id":"m","topic":"a","publishedAt":1,"headers":{},"content":1}');
    const decoded = decodeEnvelope(payload);
    expect(decoded).not.toHaveProperty('expiresAt');
    expect(decoded).not.toHaveProperty('priority');
  });

  it('decodes entries written by the original Java broker', () => {
    const payload = Buffer.from('{"topic":{"name":"order.created"},"content":{"id":1,"name":"laptop"}}');
    expect(decodeEnvelope(payload)).toEqual({
      id: null,
      topic: 'order.created',
      publishedAt: null,
      headers: {},
      content: Buffer.from('{"id":1,"name":"laptop"}'),
    });
  });

  it.each([
    ['not an object', '[1]'],
    ['no content', '{"topic":"a"}'],
    ['no topic', '{"content":1}'],
    ['a topic object without a name', '{"topic":{},"content":1}'],
    ['an id of the wrong type', '{"id":1,"topic":"a","content":1}'],
    ['headers that are an array', '{"headers":[],"topic":"a","content":1}'],
    ['an expiresAt that is not a number', '{"topic":"a","expiresAt":"soon","content":1}'],
    ['an unterminated document', '{"topic":"a","content":{'],
  ])('rejects a payload with %s', (_, text) => {
    expect(() => decodeEnvelope(Buffer.from(text))).toThrow(MalformedEnvelopeError);
  });

  it('keeps content bytes identical for any JSON value in any spelling', () => {
    fc.assert(
      fc.property(spelledJson(), fc.string(), fc.nat(), ({ text }, id, publishedAt) => {
        const content = Buffer.from(text.trim());
        const decoded = decodeEnvelope(encodeEnvelope({ id, topic: 't', publishedAt, headers: {}, content }));
        expect(sha256(decoded.content)).toBe(sha256(content));
        expect(decoded.id).toBe(id);
      }),
    );
  });

  describe('head (id and publish time, for de-duplication)', () => {
    it('reads what decodeEnvelope reads, for any id, topic and publish time', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary', minLength: 1 }), fc.nat(), (id, topic, publishedAt) => {
          const payload = encodeEnvelope({
            id,
            topic,
            publishedAt,
            headers: { h: '",' },
            expiresAt: 9,
            content: Buffer.from('{"id":"x"}'),
          });
          expect(decodeEnvelopeHead(payload)).toEqual({ id, publishedAt });
        }),
      );
    });

    it('does not parse the content', () => {
      // Not JSON: decoding the whole envelope fails on it, reading the head does not get that far.
      const payload = Buffer.concat([
        Buffer.from('{"id":"m","topic":"a","publishedAt":7,"headers":{},"content":'),
        Buffer.alloc(1000, '['),
        Buffer.from('}'),
      ]);
      expect(() => decodeEnvelope(payload)).toThrow(MalformedEnvelopeError);
      expect(decodeEnvelopeHead(payload)).toEqual({ id: 'm', publishedAt: 7 });
    });

    it("decodes any other layout whole: the Java broker's entries, fields in another order", () => {
      expect(decodeEnvelopeHead(Buffer.from('{"topic":{"name":"a"},"content":1}'))).toEqual({ id: null, publishedAt: null });
      expect(decodeEnvelopeHead(Buffer.from('{"id":"m","publishedAt":3,"topic":"a","content":1}'))).toEqual({ id: 'm', publishedAt: 3 });
      expect(() => decodeEnvelopeHead(Buffer.from('{"id":"m","topic":"a","publishedAt":1,"content":{'))).toThrow(MalformedEnvelopeError);
      expect(() => decodeEnvelopeHead(Buffer.from('{"id":"m\\q","topic":"a","publishedAt":1,"x":{}'))).toThrow(MalformedEnvelopeError);
    });
  });
});
