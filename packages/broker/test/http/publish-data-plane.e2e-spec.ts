import { AddressInfo, connect } from 'node:net';
import type { Server } from 'node:http';
import { CanActivate, ExecutionContext, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { HTTP_PLATFORMS, HttpPlatform, makeTempDir, removeTempDir, waitFor } from '@mmmq/test-support';
import { MmmqBrokerModule, registerRawBodyParser } from '../../src';
import { PublishRoutes } from '../../src/http/publish-routes';
import { TopicQueueContainer } from '../../src/storage';
import { httpRequest, rawRequest, RawResponse } from '../support/raw-http';

const PREFIX = 'api';
const TOKEN = 'publisher-token-0123456789';
const AUTH = { tokens: [{ token: TOKEN, roles: ['publish' as const], topics: ['order.*'], name: 'orders' }] };
const LIMIT = 1024;
const JSON_TYPE = 'Content-Type: application/json';
const BEARER = `Authorization: Bearer ${TOKEN}`;

/** The host application's own global guard: it sees the requests the framework serves, and lets them all through. */
class SeenByFramework implements CanActivate {
  readonly urls: string[] = [];
  canActivate(context: ExecutionContext): boolean {
    this.urls.push(context.switchToHttp().getRequest<{ url: string }>().url);
    return true;
  }
}

/** A host application with a global prefix and a global guard, and the broker in it. */
async function startHostApp(platform: HttpPlatform, rootDir: string): Promise<{ app: INestApplication; guard: SeenByFramework }> {
  const module = MmmqBrokerModule.forRoot({ persistence: { rootDir }, auth: AUTH, http: { maxBodyBytes: LIMIT } });
  const app =
    platform === 'fastify'
      ? await NestFactory.create(module, new (await import('@nestjs/platform-fastify')).FastifyAdapter(), { bodyParser: false })
      : await NestFactory.create(module, { bodyParser: false });
  if (platform === 'fastify') registerRawBodyParser(app);
  app.setGlobalPrefix(PREFIX);
  const guard = new SeenByFramework();
  app.useGlobalGuards(guard);
  await app.listen(0, '127.0.0.1');
  return { app, guard };
}

const publish = (path: string, headers: string[], body: string) =>
  httpRequest('POST', path, [...headers, `Content-Length: ${Buffer.byteLength(body)}`], body);

/** Request shapes each rule of the publish routes refuses, by path. */
const REFUSALS: Array<[string, (path: string) => Buffer]> = [
  ['no token', (path) => publish(path, [JSON_TYPE], '{"topic":"order.a","content":1}')],
  ['an unknown token', (path) => publish(path, [JSON_TYPE, 'Authorization: Bearer nope'], '{"topic":"order.a","content":1}')],
  ['a topic the token may not publish to', (path) => publish(path, [JSON_TYPE, BEARER], '{"topic":"invoice.a","content":1}')],
  [
    'a Host the broker does not serve',
    (path) => publish(path, [JSON_TYPE, BEARER, 'Host: evil.example'], '{"topic":"order.a","content":1}'),
  ],
  [
    'a page of another origin',
    (path) => publish(path, [JSON_TYPE, BEARER, 'Origin: https://evil.example'], '{"topic":"order.a","content":1}'),
  ],
  [
    'two Host fields',
    (path) => publish(path, [JSON_TYPE, BEARER, 'Host: 127.0.0.1', 'Host: 127.0.0.2'], '{"topic":"order.a","content":1}'),
  ],
  ['text/plain', (path) => publish(path, ['Content-Type: text/plain', BEARER], '{"topic":"order.a","content":1}')],
  ['gzip', (path) => publish(path, [JSON_TYPE, BEARER, 'Content-Encoding: gzip'], '{"topic":"order.a","content":1}')],
  ['no body', (path) => httpRequest('POST', path, [BEARER])],
  ['a body over http.maxBodyBytes', (path) => publish(path, [JSON_TYPE, BEARER], `{"topic":"order.a","content":"${'x'.repeat(LIMIT)}"}`)],
  ['malformed JSON', (path) => publish(path, [JSON_TYPE, BEARER], '{"topic":')],
  ['a batch body on the single route', (path) => publish(path, [JSON_TYPE, BEARER], '{"messages":[]}')],
];

describe.each(HTTP_PLATFORMS)('on %s, the publish routes served before the framework', (platform) => {
  let rootDir: string;
  let app: INestApplication;
  let guard: SeenByFramework;
  let port: number;
  const stored = (topic: string) => app.get(TopicQueueContainer).get(topic)?.tailOffset ?? 0;

  beforeAll(async () => {
    rootDir = await makeTempDir('mmmq-data-plane-');
    ({ app, guard } = await startHostApp(platform, rootDir));
    port = (app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(async () => {
    await app?.close();
    await removeTempDir(rootDir);
  });
  beforeEach(() => (guard.urls.length = 0));

  it('publish at /mmmq/messages and /batch whatever the host prefix, without the framework seeing them', async () => {
    const one = await rawRequest(port, publish('/mmmq/messages', [JSON_TYPE, BEARER], '{"topic":"order.a","content":1}'));
    const query = await rawRequest(port, publish('/mmmq/messages?trace=1', [JSON_TYPE, BEARER], '{"topic":"order.a","content":2}'));
    const batch = await rawRequest(
      port,
      publish('/mmmq/messages/batch', [JSON_TYPE, BEARER], '{"messages":[{"topic":"order.a","content":3}]}'),
    );
    expect([one.status, query.status, batch.status]).toEqual([200, 200, 200]);
    expect(one.json).toMatchObject({ acknowledgement: 'ACK', topic: 'order.a', offset: 0, deliveryMode: 'persistent' });
    expect(one.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(batch.json).toMatchObject({ acknowledgement: 'ACK', messages: [{ topic: 'order.a', offset: 2 }] });
    expect(stored('order.a')).toBe(3);
    expect(guard.urls).toEqual([]);
  });

  it('leave the publish routes under the host prefix to the framework, which answers them by the same rules', async () => {
    const answer = await rawRequest(port, publish(`/${PREFIX}/mmmq/messages`, [JSON_TYPE, BEARER], '{"topic":"order.b","content":1}'));
    expect(answer).toMatchObject({ status: 200, json: { acknowledgement: 'ACK', topic: 'order.b', offset: 0 } });
    expect(guard.urls).toEqual([`/${PREFIX}/mmmq/messages`]);
  });

  it.each(REFUSALS)('refuse %s exactly as the framework route does', async (_, request) => {
    const before = stored('order.a');
    const lean = await rawRequest(port, request('/mmmq/messages'));
    const framework = await rawRequest(port, request(`/${PREFIX}/mmmq/messages`));
    expect(lean.status).toBeGreaterThanOrEqual(400);
    expect(lean.json).toEqual({ acknowledgement: 'NACK', message: expect.any(String) });
    const compared = (answer: RawResponse) => ({
      status: answer.status,
      json: answer.json,
      challenge: answer.headers['www-authenticate'],
      retryAfter: answer.headers['retry-after'],
    });
    expect(compared(lean)).toEqual(compared(framework));
    expect(stored('order.a')).toBe(before);
  });

  it.each(['GET', 'OPTIONS', 'PUT', 'DELETE'])('hand %s on the publish path to the framework', async (method) => {
    const request = publish('/mmmq/messages', [JSON_TYPE, BEARER], '{"topic":"order.c","content":1}');
    const answer = await rawRequest(port, Buffer.from(request.toString().replace(/^POST/, method)));
    // The host's prefix puts every Nest route under /api: the framework has no route here.
    expect(answer.status).toBe(404);
    expect(stored('order.c')).toBe(0);
  });

  it('hands HEAD on the publish path to the framework', async () => {
    // An answer to HEAD has no body to read by its Content-Length: fetch reads it.
    const answer = await fetch(`http://127.0.0.1:${port}/mmmq/messages`, { method: 'HEAD', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(answer.status).toBe(404);
  });

  it.each([
    ['a trailing slash', '/mmmq/messages/', []],
    ['another case', '/MMMQ/messages', []],
    ['a push naming a consumer of the application', '/mmmq/messages', ['mmmq-consumer-id: billing']],
  ])('hand %s on to the framework', async (_, path, extra) => {
    const answer = await rawRequest(port, publish(path, [JSON_TYPE, BEARER, ...extra], '{"topic":"order.c","content":1}'));
    expect(answer.status).toBe(404);
    expect(stored('order.c')).toBe(0);
  });
});

describe.each(HTTP_PLATFORMS)('on %s, shutting down', (platform) => {
  it('answers and stores a publish whose body was still arriving when shutdown began', async () => {
    const rootDir = await makeTempDir('mmmq-data-plane-');
    const { app } = await startHostApp(platform, rootDir);
    let closing: Promise<void> | undefined;
    try {
      const server = app.getHttpServer() as Server;
      const body = '{"topic":"order.d","content":"late"}';
      const socket = connect({ host: '127.0.0.1', port: (server.address() as AddressInfo).port });
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      const request = publish('/mmmq/messages', [JSON_TYPE, BEARER], body);
      const half = request.length - 10;
      const taken = jest.spyOn(app.get(PublishRoutes), 'take');
      socket.write(request.subarray(0, half));
      await waitFor(() => taken.mock.calls.length === 1, { message: 'the publish to be taken' });
      const serving = server.listeners('request')[0];
      closing = app.close();
      await waitFor(() => server.listeners('request')[0] !== serving, { message: 'the shutdown gate to take over the server' });
      socket.write(request.subarray(half));
      await waitFor(() => received.includes('\r\n\r\n') && received.endsWith('}'), { message: 'an answer to the publish' });
      expect(received).toMatch(/^HTTP\/1\.1 200 /);
      expect(received.toLowerCase()).toContain('connection: close');
      expect(JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4))).toMatchObject({
        acknowledgement: 'ACK',
        topic: 'order.d',
        offset: 0,
      });
      socket.destroy();
    } finally {
      await (closing ?? app.close());
      await removeTempDir(rootDir);
    }
  });
});
