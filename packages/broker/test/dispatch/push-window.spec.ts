import { toWindow } from '../../src/dispatch/push-window';
import { encodeEnvelope } from '../../src/publish/message-envelope';

describe('push windows of the subscriptions of one topic', () => {
  const payload = (n: number) =>
    encodeEnvelope({ id: `m${n}`, topic: 't', publishedAt: 1, headers: {}, content: Buffer.from(`{"n":${n}}`) });
  const noSkip = () => {
    throw new Error('nothing is corrupt here');
  };

  it('decodes an entry read from memory once, however many subscriptions read it', () => {
    const entries = [payload(0), payload(1)];
    const first = toWindow(0, entries, noSkip);
    const second = toWindow(0, entries, noSkip);
    expect(second.pending.map((message) => message.envelope)).toEqual(first.pending.map((message) => message.envelope));
    second.pending.forEach((message, i) => expect(message.envelope).toBe(first.pending[i].envelope));
    expect(first.pending.map((message) => message.envelope.content.toString())).toEqual(['{"n":0}', '{"n":1}']);
  });
});
