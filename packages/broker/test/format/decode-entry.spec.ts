import { decodeEntry } from '../../src/format/decode-entry';
import { encodeEnvelope } from '../../src/format/message-envelope';

describe('decoding the entries the subscriptions of one topic read', () => {
  const payload = (n: number) =>
    encodeEnvelope({ id: `m${n}`, topic: 't', publishedAt: 1, headers: {}, content: Buffer.from(`{"n":${n}}`) });

  it('decodes an entry read from memory once, however many subscriptions read it', () => {
    const entries = [payload(0), payload(1)];
    const first = entries.map(decodeEntry);
    const second = entries.map(decodeEntry);
    second.forEach((envelope, i) => expect(envelope).toBe(first[i]));
    expect(first.map((envelope) => (envelope as { content: Buffer }).content.toString())).toEqual(['{"n":0}', '{"n":1}']);
  });

  it('turns bytes that are not a message into an error, and passes read errors through', () => {
    expect(decodeEntry(Buffer.from('not an envelope'))).toBeInstanceOf(Error);
    const corrupt = new Error('bad CRC');
    expect(decodeEntry(corrupt)).toBe(corrupt);
  });
});
