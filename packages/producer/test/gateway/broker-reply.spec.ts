import { BrokerResponseError } from '../../src';
import { BrokerReply, readBatchReply, readPublishReply } from '../../src/gateway/broker-reply';
import { OutgoingMessage } from '../../src/outgoing-message';

const sent: OutgoingMessage = { id: 'm-1', topic: 'orders', headers: undefined, content: '1', deliveryMode: undefined };
const reply = (status: number, body: unknown, retryAfter?: string): BrokerReply => ({
  url: 'http://broker/mmmq/messages',
  status,
  body: typeof body === 'string' ? body : JSON.stringify(body),
  retryAfter,
});

function failureOf(read: () => unknown): BrokerResponseError {
  try {
    read();
  } catch (error) {
    if (error instanceof BrokerResponseError) return error;
    throw error;
  }
  throw new Error('expected a BrokerResponseError');
}

describe('readPublishReply', () => {
  it('reads an ACK without a delivery mode (a broker from before them) as persistent, with its offset', () => {
    const ack = { acknowledgement: 'ACK', id: 'm-1', topic: 'orders', offset: 7 };
    expect(readPublishReply(reply(200, ack), sent)).toEqual({ id: 'm-1', topic: 'orders', offset: 7, deliveryMode: 'persistent' });
  });

  it("surfaces the broker's duplicate flag: the original's ACK answered a re-publish of a known id", () => {
    const ack = { acknowledgement: 'ACK', id: 'm-1', topic: 'orders', offset: 7, deliveryMode: 'persistent', duplicate: true };
    expect(readPublishReply(reply(200, ack), sent)).toEqual({
      id: 'm-1',
      topic: 'orders',
      offset: 7,
      deliveryMode: 'persistent',
      duplicate: true,
    });
    expect(readPublishReply(reply(200, { ...ack, duplicate: 'yes' }), sent)).not.toHaveProperty('duplicate');
  });

  it('reads a nonPersistent ACK, which has no offset, and refuses a persistent one without an offset', () => {
    const ack = { acknowledgement: 'ACK', id: 'm-1', topic: 'orders', deliveryMode: 'nonPersistent' };
    expect(readPublishReply(reply(200, ack), sent)).toEqual({ id: 'm-1', topic: 'orders', deliveryMode: 'nonPersistent' });
    const noOffset = failureOf(() => readPublishReply(reply(200, { ...ack, deliveryMode: 'persistent' }), sent));
    expect(noOffset.message).toMatch(/\(when persistent\) an offset/);
    const unknown = failureOf(() => readPublishReply(reply(200, { ...ack, offset: 1, deliveryMode: 'fast' }), sent));
    expect(unknown.message).toMatch(/expected an ACK or NACK/);
  });

  it("keeps the ACK's fsync when the topic's flush policy wrote the message without fsyncing it first", () => {
    const ack = { acknowledgement: 'ACK', id: 'm-1', topic: 'orders', offset: 3, deliveryMode: 'persistent' };
    expect(readPublishReply(reply(200, { ...ack, fsync: 'interval' }), sent)).toEqual({
      ...ack,
      acknowledgement: undefined,
      fsync: 'interval',
    });
    expect(readPublishReply(reply(200, { ...ack, fsync: 'never' }), sent)).toMatchObject({ fsync: 'never' });
    expect(readPublishReply(reply(200, { ...ack, fsync: 'sometimes' }), sent)).not.toHaveProperty('fsync');
    expect(readPublishReply(reply(200, ack), sent)).not.toHaveProperty('fsync');
  });

  it('reports a NACK with its reason, status and Retry-After', () => {
    const error = failureOf(() => readPublishReply(reply(503, { acknowledgement: 'NACK', message: 'disk full' }, '2'), sent));
    expect(error).toMatchObject({ status: 503, reason: 'disk full', retryAfterMs: 2000 });
    expect(error.message).toBe('The broker at http://broker/mmmq/messages answered 503: disk full');
  });

  it('reports a NACK with a success status as a NACK', () => {
    const error = failureOf(() => readPublishReply(reply(200, { acknowledgement: 'NACK' }), sent));
    expect(error).toMatchObject({ status: 200, reason: '' });
    expect(error.message).toMatch(/answered NACK without a reason$/);
  });

  it("takes the reason of a framework's own error body", () => {
    const body = { message: 'Cannot POST /mmmq/messages', error: 'Not Found', statusCode: 404 };
    expect(failureOf(() => readPublishReply(reply(404, body), sent)).reason).toBe('Cannot POST /mmmq/messages');
  });

  it('quotes an error body that is not JSON', () => {
    const error = failureOf(() => readPublishReply(reply(502, `<html>${'x'.repeat(500)}</html>`), sent));
    expect(error.reason).toMatch(/^<html>x+…$/);
    expect(error.reason.length).toBeLessThan(250);
  });

  it('refuses an ACK for another message', () => {
    const ack = { acknowledgement: 'ACK', id: 'm-2', topic: 'orders', offset: 7 };
    expect(failureOf(() => readPublishReply(reply(200, ack), sent)).message).toMatch(
      /answered 200 but expected an ACK with the id m-1, the topic orders and \(when persistent\) an offset, got \{/,
    );
  });
});

describe('readBatchReply', () => {
  const batch: OutgoingMessage[] = [sent, { ...sent, id: 'm-2' }];

  it('returns one entry per message, in order', () => {
    const messages = [
      { id: 'm-1', topic: 'orders', offset: 3, deliveryMode: 'persistent' },
      { id: 'm-2', topic: 'orders', offset: 4, deliveryMode: 'persistent' },
    ];
    expect(readBatchReply(reply(200, { acknowledgement: 'ACK', messages }), batch)).toEqual(messages);
  });

  it('refuses an ACK that does not list every message', () => {
    const messages = [{ id: 'm-1', topic: 'orders', offset: 3 }];
    const error = failureOf(() => readBatchReply(reply(200, { acknowledgement: 'ACK', messages }), batch));
    expect(error.message).toMatch(/one entry per message of the batch \(2\)/);
  });
});
