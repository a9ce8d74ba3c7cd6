import { encodeDelivery } from '../../src/dispatch/delivery-body';
import { toWindow } from '../../src/dispatch/push-window';
import { encodeEnvelope } from '../../src/publish/message-envelope';

describe('push windows shared by the subscriptions of a topic', () => {
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

  it('encodes a first delivery once and shares it, but never a retry or a possible redelivery', () => {
    const [{ envelope }] = toWindow(5, [payload(5)], noSkip).pending;
    const first = encodeDelivery(envelope, 5, 1, false);
    expect(encodeDelivery(envelope, 5, 1, false)).toBe(first);
    expect(JSON.parse(first.toString())).toMatchObject({ id: 'm5', offset: 5, deliveryCount: 1, redelivered: false });
    expect(JSON.parse(encodeDelivery(envelope, 5, 2, true).toString())).toMatchObject({ deliveryCount: 2, redelivered: true });
    expect(JSON.parse(encodeDelivery(envelope, 5, 1, true).toString())).toMatchObject({ deliveryCount: 1, redelivered: true });
  });
});
