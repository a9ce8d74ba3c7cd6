import { AddressInfo } from 'node:net';
import { BrokerApp, HTTP_PLATFORMS, HttpPlatform, startBroker } from './broker-app.fixture';
import { httpRequest, rawRequest, RawResponse } from '../support/raw-http';
import { nonLoopbackAddress } from '../support/non-loopback-address';

const PUBLISHER = 'publisher-token-0123456789';
const PUBLISHER_NEXT = 'publisher-token-rotated-012';
const CONSUMER = 'consumer-token-0123456789';
const ADMIN = 'admin-token-0123456789abcd';
const AUTH = {
  tokens: [
    { token: PUBLISHER, roles: ['publish' as const], topics: ['order.*'], name: 'orders' },
    { token: PUBLISHER_NEXT, roles: ['publish' as const], topics: ['order.*'], name: 'orders (rotated)' },
    { token: CONSUMER, roles: ['consume' as const], name: 'billing' },
    { token: ADMIN, roles: ['admin' as const], name: 'ops' },
  ],
};
const DISPATCHER = { consumerId: 'billing', host: 'http://127.0.0.1:1', pattern: 'order.*' };

describe.each(HTTP_PLATFORMS)('on %s, a broker with tokens serves only what each token may do', (platform) => {
  let broker: BrokerApp;
  let port: number;
  const send = (method: string, path: string, token: string | undefined, body?: unknown): Promise<RawResponse> => {
    const text = body === undefined ? '' : JSON.stringify(body);
    const headers = [
      ...(token === undefined ? [] : [`Authorization: Bearer ${token}`]),
      ...(body === undefined ? [] : ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(text)}`]),
    ];
    return rawRequest(port, httpRequest(method, path, headers, text));
  };
  const stored = (topic: string) => broker.topics.get(topic)?.tailOffset ?? 0;

  beforeAll(async () => {
    broker = await startBroker({ auth: AUTH }, { bodyParser: false }, platform);
    port = (broker.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => broker.close());

  it('answers 401 with a Bearer challenge to a request without a token, from loopback too', async () => {
    for (const [method, path] of [
      ['POST', '/mmmq/messages'],
      ['GET', '/mmmq/dispatchers'],
      ['GET', '/mmmq/subscriptions'],
    ]) {
      const answer = await send(method, path, undefined, method === 'POST' ? { topic: 'order.created', content: 1 } : undefined);
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toBe('Bearer realm="mmmq"');
      expect(answer.json).toEqual({ acknowledgement: 'NACK', message: expect.stringMatching(/requires a token.*Authorization: Bearer/) });
    }
    expect(stored('order.created')).toBe(0);
  });

  it('answers 401 invalid_token to an unknown token, and to any other kind of Authorization', async () => {
    const unknown = await send('POST', '/mmmq/messages', 'not-a-token-of-this-broker', { topic: 'order.created', content: 1 });
    expect(unknown.status).toBe(401);
    expect(unknown.headers['www-authenticate']).toBe('Bearer realm="mmmq", error="invalid_token"');
    expect(unknown.json.message).toBe('The token is not valid for this broker');
    const basic = await rawRequest(port, httpRequest('GET', '/mmmq/dispatchers', ['Authorization: Basic b3BzOnNlY3JldA==']));
    expect(basic.status).toBe(401);
  });

  it('lets a publish token publish to its topics only: a topic outside them gets 403 naming it, a batch is refused whole', async () => {
    expect((await send('POST', '/mmmq/messages', PUBLISHER, { topic: 'order.created', content: 1 })).status).toBe(200);
    expect((await send('POST', '/mmmq/messages', PUBLISHER_NEXT, { topic: 'order.paid', content: 2 })).status).toBe(200);
    const outside = await send('POST', '/mmmq/messages', PUBLISHER, { topic: 'audit.log', content: 1 });
    expect(outside.status).toBe(403);
    expect(outside.json.message).toMatch(/^The token orders may not publish to audit\.log; it may publish to order\.\*/);
    const batch = await send('POST', '/mmmq/messages/batch', PUBLISHER, { messages: [{ topic: 'audit.log', content: 1 }] });
    expect(batch.status).toBe(403);
    expect(stored('audit.log')).toBe(0);
  });

  it('keeps a publish token away from dispatchers, dead letters and subscriptions', async () => {
    for (const [method, path, body] of [
      ['GET', '/mmmq/dispatchers', undefined],
      ['POST', '/mmmq/dispatchers', DISPATCHER],
      ['GET', '/mmmq/subscriptions', undefined],
      ['GET', '/mmmq/storage', undefined],
      ['GET', '/mmmq/dead-letters/billing', undefined],
    ] as const) {
      const answer = await send(method, path, PUBLISHER, body);
      expect({ path, status: answer.status }).toEqual({ path, status: 403 });
      expect(answer.json.message).toMatch(/^The token orders lacks the (consume|admin) role/);
    }
  });

  it('lets a consume token manage dispatchers, and nothing else', async () => {
    expect((await send('POST', '/mmmq/dispatchers', CONSUMER, DISPATCHER)).status).toBe(201);
    expect((await send('GET', '/mmmq/dispatchers/billing', CONSUMER)).status).toBe(200);
    expect((await send('PUT', '/mmmq/dispatchers/billing', CONSUMER, { host: 'http://127.0.0.1:2', pattern: 'order.*' })).status).toBe(200);
    expect((await send('POST', '/mmmq/messages', CONSUMER, { topic: 'order.created', content: 1 })).status).toBe(403);
    expect((await send('GET', '/mmmq/subscriptions', CONSUMER)).status).toBe(403);
    expect((await send('POST', '/mmmq/dead-letters/billing/redrive', CONSUMER)).status).toBe(403);
    expect((await send('POST', '/mmmq/dead-letters/billing/purge', CONSUMER)).status).toBe(403);
  });

  it('lets an admin token do everything', async () => {
    expect((await send('POST', '/mmmq/messages', ADMIN, { topic: 'audit.log', content: 1 })).status).toBe(200);
    expect((await send('GET', '/mmmq/subscriptions', ADMIN)).status).toBe(200);
    expect((await send('GET', '/mmmq/storage', ADMIN)).status).toBe(200);
    expect((await send('GET', '/mmmq/dead-letters/billing', ADMIN)).status).toBe(200);
    expect((await send('POST', '/mmmq/dead-letters/billing/redrive', ADMIN)).status).toBe(200);
    expect((await send('POST', '/mmmq/dead-letters/billing/purge', ADMIN)).status).toBe(200);
    expect((await send('DELETE', '/mmmq/dispatchers/billing', ADMIN)).status).toBe(204);
  });
});

describe.each(HTTP_PLATFORMS)('on %s, a broker without tokens', (platform: HttpPlatform) => {
  const remote = nonLoopbackAddress();
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker({}, { bodyParser: false }, platform);
  });
  afterAll(() => broker.close());

  it('serves loopback clients without a token, and ignores one they send', async () => {
    const port = (broker.app.getHttpServer().address() as AddressInfo).port;
    expect((await rawRequest(port, httpRequest('GET', '/mmmq/dispatchers', []))).status).toBe(200);
    expect((await rawRequest(port, httpRequest('GET', '/mmmq/dispatchers', [`Authorization: Bearer ${ADMIN}`]))).status).toBe(200);
  });

  (remote === undefined ? it.skip : it)(`refuses a client on another address (${remote}) with 401, bound to every interface`, async () => {
    const everywhere = await startBroker({}, { bodyParser: false }, platform, '0.0.0.0');
    try {
      const port = (everywhere.app.getHttpServer().address() as AddressInfo).port;
      const answer = await rawRequest(port, httpRequest('GET', '/mmmq/dispatchers', [`Host: ${remote}`]), remote);
      expect(answer.status).toBe(401);
      expect(answer.json.message).toBe(
        `This broker has no tokens configured (auth.tokens), so it serves loopback clients only, and ${remote} is not one`,
      );
    } finally {
      await everywhere.close();
    }
  });
});
