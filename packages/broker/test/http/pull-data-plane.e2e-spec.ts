import { AddressInfo, connect, Socket } from 'node:net';
import type { Server } from 'node:http';
import { CanActivate, ExecutionContext, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { HTTP_PLATFORMS, HttpPlatform, makeTempDir, removeTempDir, waitFor } from '@mmmq/test-support';
import { MmmqBrokerModule, registerRawBodyParser } from '../../src';
import { PullRoutes } from '../../src/http/pull-routes';
import { httpRequest, rawRequest, RawResponse } from '../support/raw-http';

const PREFIX = 'api';
const ADMIN = 'admin-token-0123456789abcd';
const BILLING = 'billing-token-0123456789ab';
const AUTH = {
  tokens: [
    { token: ADMIN, roles: ['admin' as const], name: 'ops' },
    { token: BILLING, roles: ['consume' as const], consumers: ['billing'], name: 'billing' },
  ],
};
const JSON_TYPE = 'Content-Type: application/json';

/** The host application's own global guard: it sees the requests the framework serves, and lets them all through. */
class SeenByFramework implements CanActivate {
  readonly urls: string[] = [];
  canActivate(context: ExecutionContext): boolean {
    this.urls.push(context.switchToHttp().getRequest<{ url: string }>().url);
    return true;
  }
}

async function startHostApp(platform: HttpPlatform, rootDir: string): Promise<{ app: INestApplication; guard: SeenByFramework }> {
  const module = MmmqBrokerModule.forRoot({ persistence: { rootDir }, auth: AUTH });
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

const post = (path: string, token: string | undefined, body: string) =>
  httpRequest(
    'POST',
    path,
    [...(token === undefined ? [] : [`Authorization: Bearer ${token}`]), JSON_TYPE, `Content-Length: ${Buffer.byteLength(body)}`],
    body,
  );

/** Request shapes the pull routes refuse, by the path of the route (`…/consumers/{id}/{action}`) they go to. */
const REFUSALS: Array<[string, string, string | undefined, string]> = [
  ['no token', 'billing/fetch', undefined, '{}'],
  ["another consumer's", 'shipping/ack', BILLING, '{"leases":[]}'],
  ['an invalid consumer id', '.billing/fetch', ADMIN, '{}'],
  ['an unknown consumer', 'nobody/fetch', ADMIN, '{}'],
  ['a field the route does not know', 'billing/nack', BILLING, '{"leases":[],"colour":"red"}'],
  ['malformed JSON', 'billing/extend', BILLING, '{"leases":'],
];

describe.each(HTTP_PLATFORMS)('on %s, the pull routes served before the framework', (platform) => {
  let rootDir: string;
  let app: INestApplication;
  let guard: SeenByFramework;
  let port: number;
  const send = async (path: string, token: string | undefined, body: unknown): Promise<RawResponse> =>
    rawRequest(port, post(path, token, JSON.stringify(body)));

  beforeAll(async () => {
    rootDir = await makeTempDir('mmmq-pull-plane-');
    ({ app, guard } = await startHostApp(platform, rootDir));
    port = (app.getHttpServer().address() as AddressInfo).port;
    const registered = await send(`/${PREFIX}/mmmq/dispatchers`, ADMIN, { consumerId: 'billing', pattern: 'order.*' });
    expect(registered.status).toBe(201);
  });
  afterAll(async () => {
    await app?.close();
    await removeTempDir(rootDir);
  });
  beforeEach(() => (guard.urls.length = 0));

  it('fetch, extend, nack and ack at /mmmq/consumers/{id}, without the framework seeing them', async () => {
    for (const content of [1, 2]) expect((await send('/mmmq/messages', ADMIN, { topic: 'order.a', content })).status).toBe(200);
    const fetched = await send('/mmmq/consumers/billing/fetch?trace=1', BILLING, { max: 2 });
    expect(fetched).toMatchObject({ status: 200, headers: { 'content-type': 'application/json' } });
    const [first, second] = fetched.json.messages as Array<{ lease: string; content: unknown }>;
    expect([first.content, second.content]).toEqual([1, 2]);
    expect((await send('/mmmq/consumers/billing/extend', BILLING, { leases: [first.lease] })).json).toEqual({ extended: 1, lost: [] });
    expect((await send('/mmmq/consumers/billing/nack', BILLING, { leases: [second.lease] })).json).toEqual({ settled: 1, lost: [] });
    expect((await send('/mmmq/consumers/billing/ack', BILLING, { leases: [first.lease] })).json).toEqual({ settled: 1, lost: [] });
    const again = await send('/mmmq/consumers/billing/fetch', BILLING, { max: 2 });
    expect(again.json.messages.map((message: { content: unknown }) => message.content)).toEqual([2]);
    await send('/mmmq/consumers/billing/ack', BILLING, { leases: [again.json.messages[0].lease] });
    expect(guard.urls).toEqual([]);
  });

  it.each(REFUSALS)('refuse %s exactly as the framework route does', async (_, route, token, body) => {
    const lean = await rawRequest(port, post(`/mmmq/consumers/${route}`, token, body));
    const framework = await rawRequest(port, post(`/${PREFIX}/mmmq/consumers/${route}`, token, body));
    expect(lean.status).toBeGreaterThanOrEqual(400);
    expect(lean.json).toEqual({ acknowledgement: 'NACK', message: expect.any(String) });
    const compared = (answer: RawResponse) => ({ status: answer.status, json: answer.json, challenge: answer.headers['www-authenticate'] });
    expect(compared(lean)).toEqual(compared(framework));
  });

  it.each([
    ['terminate, which stays a framework route', '/mmmq/consumers/billing/terminate'],
    ['an encoded consumer id', '/mmmq/consumers/bill%69ng/fetch'],
    ['an empty consumer id', '/mmmq/consumers//fetch'],
    ['a longer path', '/mmmq/consumers/billing/fetch/more'],
  ])('hand %s on to the framework', async (_, path) => {
    // The host's prefix puts every Nest route under /api: the framework has no route here.
    expect((await send(path, BILLING, { leases: [] })).status).toBe(404);
  });

  it('stops a waiting fetch whose client went away: what is published next goes to the next fetch', async () => {
    const server = app.getHttpServer() as Server;
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const taken = jest.spyOn(app.get(PullRoutes), 'take');
    const socket = connect({ host: '127.0.0.1', port });
    socket.write(post('/mmmq/consumers/billing/fetch', BILLING, '{"waitMs":20000}'));
    const brokerSide = await accepted;
    await waitFor(() => taken.mock.calls.length === 1, { message: 'the waiting fetch to be taken' });
    const gone = new Promise((resolve) => brokerSide.once('close', resolve));
    socket.destroy();
    await gone;
    expect((await send('/mmmq/messages', ADMIN, { topic: 'order.a', content: 'after' })).status).toBe(200);
    const fetched = await send('/mmmq/consumers/billing/fetch', BILLING, { waitMs: 5000 });
    expect(fetched.json.messages.map((message: { content: unknown }) => message.content)).toEqual(['after']);
  });
});
