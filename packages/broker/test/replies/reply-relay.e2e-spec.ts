import { AddressInfo } from 'node:net';
import { ReplyInboxes } from '@mmmq/core';
import { waitFor } from '@mmmq/test-support';
import { ReplyRelay } from '../../src/replies/reply-relay';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { httpRequest, rawRequest, RawResponse } from '../support/raw-http';

const PUBLISHER = 'publisher-token-0123456789';
const CONSUMER = 'consumer-token-0123456789';

describe("the broker's reply relay: listeners post replies, requesters collect them by inbox", () => {
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(() => broker.close());

  it('holds a reply for its inbox until collected, and hands each out once', async () => {
    const posted = await broker.request('POST', '/mmmq/replies', { inbox: 'inbox-a', correlationId: 'c-1', content: { total: 6 } });
    expect(posted).toMatchObject({ status: 200, body: { acknowledgement: 'ACK', relayed: true } });
    await broker.request('POST', '/mmmq/replies', { inbox: 'inbox-a', correlationId: 'c-2', error: { name: 'RangeError', message: 'no' } });
    const collected = await broker.request('POST', '/mmmq/replies/inbox-a/fetch', { waitMs: 0 });
    expect(collected).toMatchObject({
      status: 200,
      body: {
        replies: [
          { inbox: 'inbox-a', correlationId: 'c-1', content: { total: 6 } },
          { inbox: 'inbox-a', correlationId: 'c-2', error: { name: 'RangeError', message: 'no' } },
        ],
      },
    });
    expect((await broker.request('POST', '/mmmq/replies/inbox-a/fetch', { waitMs: 0 })).body).toEqual({ replies: [] });
  });

  it('answers a waiting collection as soon as a reply comes', async () => {
    const started = Date.now();
    const waiting = broker.request('POST', '/mmmq/replies/inbox-b/fetch', { waitMs: 30_000 });
    await waitFor(() => broker.app.get(ReplyRelay).collecting('inbox-b'), { message: 'the collection waiting on the broker' });
    await broker.request('POST', '/mmmq/replies', { inbox: 'inbox-b', correlationId: 'c-3', content: null });
    expect((await waiting).body).toEqual({ replies: [{ inbox: 'inbox-b', correlationId: 'c-3', content: null }] });
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('hands a reply to a requester of its own process directly', async () => {
    const received: unknown[] = [];
    const close = ReplyInboxes.open('inbox-local', (reply) => received.push(reply));
    try {
      await broker.request('POST', '/mmmq/replies', { inbox: 'inbox-local', correlationId: 'c-4', content: 'here' });
      expect(received).toEqual([{ inbox: 'inbox-local', correlationId: 'c-4', content: 'here' }]);
      expect((await broker.request('POST', '/mmmq/replies/inbox-local/fetch', { waitMs: 0 })).body).toEqual({ replies: [] });
    } finally {
      close();
    }
  });

  it.each<[string, string, unknown, RegExp]>([
    ['a reply without a correlation id', '/mmmq/replies', { inbox: 'i', content: 1 }, /correlationId/],
    [
      'a reply with content and error',
      '/mmmq/replies',
      { inbox: 'i', correlationId: 'c', content: 1, error: { name: 'E', message: 'm' } },
      /either/,
    ],
    ['a reply with an unknown field', '/mmmq/replies', { inbox: 'i', correlationId: 'c', stack: 'at …' }, /unknown field\(s\) stack/],
    ['a collection waiting too long', '/mmmq/replies/i/fetch', { waitMs: 60_001 }, /waitMs must be an integer from 0 to 60000/],
    ['a collection with an unknown field', '/mmmq/replies/i/fetch', { wait: 1 }, /unknown field\(s\) wait/],
    ['an inbox name with other characters', '/mmmq/replies/i%20j/fetch', {}, /Reply inbox "i j"/],
  ])('refuses %s with 400, naming the problem', async (_what, path, body, message) => {
    const answer = await broker.request('POST', path, body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ acknowledgement: 'NACK', message: expect.stringMatching(message) });
  });
});

describe('the reply relay on a broker with tokens', () => {
  let broker: BrokerApp;
  let port: number;
  const send = (path: string, token: string, body: unknown): Promise<RawResponse> => {
    const text = JSON.stringify(body);
    const headers = [`Authorization: Bearer ${token}`, 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(text)}`];
    return rawRequest(port, httpRequest('POST', path, headers, text));
  };

  beforeAll(async () => {
    broker = await startBroker({
      auth: {
        tokens: [
          { token: PUBLISHER, roles: ['publish'] },
          { token: CONSUMER, roles: ['consume'] },
        ],
      },
    });
    port = (broker.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => broker.close());

  it('takes replies from consumers and serves collections to publishers, and neither the other way round', async () => {
    const reply = { inbox: 'inbox-t', correlationId: 'c-5', content: 1 };
    expect((await send('/mmmq/replies', PUBLISHER, reply)).status).toBe(403);
    expect((await send('/mmmq/replies', CONSUMER, reply)).status).toBe(200);
    expect((await send('/mmmq/replies/inbox-t/fetch', CONSUMER, { waitMs: 0 })).status).toBe(403);
    const collected = await send('/mmmq/replies/inbox-t/fetch', PUBLISHER, { waitMs: 0 });
    expect(collected.status).toBe(200);
    expect(collected.json).toEqual({ replies: [reply] });
  });
});
