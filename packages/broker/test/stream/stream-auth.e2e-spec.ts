import { STREAM_PREAMBLE, StreamRequestKind } from '@mmmq/core';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { nonLoopbackAddress } from '../support/non-loopback-address';
import { StreamClient } from './stream-client';

const PUBLISHER = 'publisher-token-0123456789';
const CONSUMER = 'consumer-token-0123456789';
const AUTH = {
  tokens: [
    { token: PUBLISHER, roles: ['publish' as const], topics: ['order.*'], name: 'orders' },
    { token: CONSUMER, roles: ['consume' as const], name: 'billing' },
  ],
};
const { AUTH: AUTH_KIND } = StreamRequestKind;

describe('publish stream with tokens: a connection authenticates first, with an AUTH request', () => {
  let broker: BrokerApp;
  const clients: StreamClient[] = [];
  const connect = () => {
    const client = StreamClient.connect(broker);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    broker = await startBroker({ stream: { port: 0 }, auth: AUTH });
  });
  afterEach(() => clients.splice(0).forEach((client) => client.close()));
  afterAll(() => broker.close());

  it('answers 401 to every request of a connection that did not authenticate, closes it, and stores nothing', async () => {
    const client = connect();
    client.send(1, { topic: 'order.created', content: 1 });
    client.send(2, { topic: 'order.created', content: 2 });
    for (const id of [1, 2]) {
      expect(await client.answer(id)).toEqual({
        status: 401,
        body: { acknowledgement: 'NACK', message: expect.stringMatching(/requires a token: send an AUTH request \(kind 3\)/) },
      });
    }
    await client.closed;
    expect(broker.topics.get('order.created')).toBeUndefined();
  });

  it('answers 401 to an unknown token and closes the connection, answering what was sent behind it', async () => {
    const client = connect();
    client.send(1, 'not-a-token-of-this-broker', AUTH_KIND);
    client.send(2, { topic: 'order.created', content: 1 });
    expect(await client.answer(1)).toEqual({
      status: 401,
      body: { acknowledgement: 'NACK', message: 'The token is not valid for this broker' },
    });
    expect((await client.answer(2)).status).toBe(401);
    await client.closed;
    expect(broker.topics.get('order.created')).toBeUndefined();
  });

  it('publishes after a valid AUTH sent back to back with the publishes, within the token topics only', async () => {
    const client = connect();
    client.send(1, PUBLISHER, AUTH_KIND);
    client.send(2, { topic: 'order.created', content: 1 });
    client.send(3, { topic: 'audit.log', content: 1 });
    client.send(4, { messages: [{ topic: 'order.paid', content: 1 }] }, StreamRequestKind.PUBLISH_BATCH);
    expect(await client.answer(1)).toEqual({ status: 200, body: { acknowledgement: 'ACK' } });
    expect((await client.answer(2)).status).toBe(200);
    expect(await client.answer(3)).toEqual({
      status: 403,
      body: { acknowledgement: 'NACK', message: expect.stringMatching(/^The token orders may not publish to audit\.log/) },
    });
    // A refused topic is the request's fault: it does not fence the connection.
    expect((await client.answer(4)).status).toBe(200);
    expect(broker.topics.get('audit.log')).toBeUndefined();
  });

  it('refuses publishes from a token without the publish role with 403', async () => {
    const client = connect();
    client.send(1, CONSUMER, AUTH_KIND);
    client.send(2, { topic: 'order.created', content: 1 });
    expect((await client.answer(1)).status).toBe(200);
    expect(await client.answer(2)).toEqual({
      status: 403,
      body: { acknowledgement: 'NACK', message: 'The token billing lacks the publish role (it has consume)' },
    });
  });
});

describe('publish stream without tokens', () => {
  const remote = nonLoopbackAddress();

  it('takes publishes from loopback clients without AUTH, and answers an AUTH with 200 whatever its token', async () => {
    const broker = await startBroker({ stream: { port: 0 } });
    const client = StreamClient.connect(broker);
    try {
      client.send(1, { topic: 't', content: 1 });
      client.send(2, 'any-token-at-all', AUTH_KIND);
      client.send(3, { topic: 't', content: 2 });
      expect((await client.answer(1)).status).toBe(200);
      expect((await client.answer(2)).status).toBe(200);
      expect((await client.answer(3)).status).toBe(200);
    } finally {
      client.close();
      await broker.close();
    }
  });

  (remote === undefined ? it.skip : it)(`refuses a client on another address (${remote}) with 401 and closes it`, async () => {
    const broker = await startBroker({ stream: { port: 0, host: '0.0.0.0' } });
    const client = StreamClient.connect(broker, STREAM_PREAMBLE, remote);
    try {
      client.send(1, { topic: 't', content: 1 });
      expect(await client.answer(1)).toEqual({
        status: 401,
        body: { acknowledgement: 'NACK', message: expect.stringMatching(/no tokens configured.*loopback clients only, and .*is not one/) },
      });
      await client.closed;
      expect(broker.topics.get('t')).toBeUndefined();
    } finally {
      client.close();
      await broker.close();
    }
  });
});

describe('publish stream: a connection that does not finish its handshake within http.headersTimeoutMs is closed', () => {
  const HANDSHAKE_MS = 200;
  /** Far above the shortened timeout: a connection still open by then was never going to be closed. */
  const DEADLINE_MS = 5_000;
  const closedWithin = (client: StreamClient, what: string) =>
    Promise.race([
      client.closed,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`${what} still open after ${DEADLINE_MS} ms`)), DEADLINE_MS).unref(),
      ),
    ]);

  it('closes a connection that never sends the preamble, and, with tokens, one that never authenticates', async () => {
    const open = await startBroker({ stream: { port: 0 }, http: { headersTimeoutMs: HANDSHAKE_MS } });
    const guarded = await startBroker({ stream: { port: 0 }, http: { headersTimeoutMs: HANDSHAKE_MS }, auth: AUTH });
    const silent = StreamClient.connect(open, Buffer.alloc(0));
    const halfPreamble = StreamClient.connect(open, STREAM_PREAMBLE.subarray(0, 2));
    const unauthenticated = StreamClient.connect(guarded);
    const idle = StreamClient.connect(open);
    try {
      await Promise.all([
        closedWithin(silent, 'a connection without preamble'),
        closedWithin(halfPreamble, 'a connection with half a preamble'),
        closedWithin(unauthenticated, 'a connection that never authenticates'),
      ]);
      // An idle producer that did its handshake keeps its connection.
      idle.send(1, { topic: 't', content: 1 });
      expect((await idle.answer(1)).status).toBe(200);
    } finally {
      for (const client of [silent, halfPreamble, unauthenticated, idle]) client.close();
      await open.close();
      await guarded.close();
    }
  });
});
