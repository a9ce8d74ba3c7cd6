import { AddressInfo } from 'node:net';
import { BrokerApp, HTTP_PLATFORMS, HttpPlatform, startBroker } from './broker-app.fixture';
import { httpRequest, RawResponse, rawRequest } from '../support/raw-http';

const LIMIT = 1024;
const CONSUMER = 'http://127.0.0.1:1';
const JSON_TYPE = 'Content-Type: application/json';

/** Every broker route that takes a body, with a body it accepts. */
interface BodyRoute {
  method: 'POST' | 'PUT';
  path: string;
  validBody(): string;
  okStatus: number;
  /** The dead-letter redrive and purge read a missing body as `{}`. */
  bodyOptional?: boolean;
}

let consumers = 0;
const ROUTES: BodyRoute[] = [
  { method: 'POST', path: '/mmmq/messages', validBody: () => '{"topic":"t","content":1}', okStatus: 200 },
  { method: 'POST', path: '/mmmq/messages/batch', validBody: () => '{"messages":[{"topic":"t","content":1}]}', okStatus: 200 },
  {
    method: 'POST',
    path: '/mmmq/dispatchers',
    validBody: () => JSON.stringify({ consumerId: `c-${++consumers}`, host: CONSUMER, pattern: 'u' }),
    okStatus: 201,
  },
  { method: 'PUT', path: '/mmmq/dispatchers/existing', validBody: () => JSON.stringify({ host: CONSUMER, pattern: 'u' }), okStatus: 200 },
  { method: 'POST', path: '/mmmq/dead-letters/existing/redrive', validBody: () => '{}', okStatus: 200, bodyOptional: true },
  { method: 'POST', path: '/mmmq/dead-letters/existing/purge', validBody: () => '{}', okStatus: 200, bodyOptional: true },
  { method: 'POST', path: '/mmmq/replies', validBody: () => '{"inbox":"inbox-1","correlationId":"c-1","content":1}', okStatus: 200 },
  { method: 'POST', path: '/mmmq/replies/inbox-2/fetch', validBody: () => '{"waitMs":0}', okStatus: 200 },
];

interface Expected {
  status: number;
  message?: RegExp;
}

/** A request shape, built for a route, and what every platform must answer. */
interface Row {
  name: string;
  request(route: BodyRoute): Buffer;
  expected(route: BodyRoute): Expected;
}

const withBody = (route: BodyRoute, headers: string[], body: string) =>
  httpRequest(route.method, route.path, [...headers, `Content-Length: ${Buffer.byteLength(body)}`], body);
const chunked = (route: BodyRoute, headers: string[], chunks: string[]) =>
  httpRequest(
    route.method,
    route.path,
    [...headers, 'Transfer-Encoding: chunked'],
    chunks.map((chunk) => `${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`).join('') + '0\r\n\r\n',
  );
const ok = (route: BodyRoute): Expected => ({ status: route.okStatus });
const noBody = (route: BodyRoute): Expected => (route.bodyOptional ? ok(route) : { status: 400, message: /has no body/ });
const unsupportedType: Expected = { status: 415, message: /Content-Type .*(not supported|missing)/ };

const ROWS: Row[] = [
  { name: 'a valid JSON body', request: (route) => withBody(route, [JSON_TYPE], route.validBody()), expected: ok },
  {
    name: 'a valid body as application/json; charset=utf-8',
    request: (route) => withBody(route, ['Content-Type: application/json; charset=utf-8'], route.validBody()),
    expected: ok,
  },
  { name: 'no body and no Content-Type', request: (route) => httpRequest(route.method, route.path, []), expected: noBody },
  {
    name: 'Content-Length: 0 without a Content-Type',
    request: (route) => httpRequest(route.method, route.path, ['Content-Length: 0']),
    expected: noBody,
  },
  {
    name: 'Content-Length: 0 as application/json',
    request: (route) => httpRequest(route.method, route.path, [JSON_TYPE, 'Content-Length: 0']),
    expected: noBody,
  },
  {
    name: 'more than 2,000 headers, which Node would otherwise cut off with Content-Type and Content-Length',
    request: (route) => withBody(route, [...Array.from({ length: 2000 }, (_, i) => `X-${i}: 1`), JSON_TYPE], route.validBody()),
    expected: () => ({ status: 431, message: /more than 2000 header fields/ }),
  },
  {
    name: 'two Host headers',
    request: (route) => withBody(route, ['Host: 127.0.0.1', 'Host: evil.example', JSON_TYPE], route.validBody()),
    expected: () => ({ status: 400, message: /2 Host header fields; send exactly one/ }),
  },
  {
    name: 'a JSON array where an object belongs',
    request: (route) => withBody(route, [JSON_TYPE], '[]'),
    expected: () => ({ status: 400, message: /./ }),
  },
  {
    name: 'a body that is not UTF-8',
    request: (route) => {
      const body = Buffer.concat([Buffer.from('{"ids":["'), Buffer.from([0xc0, 0xae]), Buffer.from('"],"topic":"t","content":1}')]);
      return httpRequest(route.method, route.path, [JSON_TYPE, `Content-Length: ${body.length}`], body);
    },
    expected: () => ({ status: 400, message: /./ }),
  },
  {
    name: 'a JSON body as text/plain',
    request: (route) => withBody(route, ['Content-Type: text/plain'], route.validBody()),
    expected: () => unsupportedType,
  },
  {
    name: 'a form body',
    request: (route) => withBody(route, ['Content-Type: application/x-www-form-urlencoded'], 'topic=t&content=1'),
    expected: () => unsupportedType,
  },
  { name: 'a body without Content-Type', request: (route) => withBody(route, [], route.validBody()), expected: () => unsupportedType },
  {
    name: 'a malformed Content-Type',
    request: (route) => withBody(route, ['Content-Type: json'], route.validBody()),
    expected: () => unsupportedType,
  },
  ...['gzip', 'br', 'deflate'].map<Row>((encoding) => ({
    name: `Content-Encoding: ${encoding}`,
    request: (route) => withBody(route, [JSON_TYPE, `Content-Encoding: ${encoding}`], route.validBody()),
    expected: () => ({ status: 415, message: new RegExp(`Content-Encoding ${encoding} is not supported`) }),
  })),
  {
    name: 'a Content-Length over http.maxBodyBytes',
    request: (route) => withBody(route, [JSON_TYPE], `{"pad":"${'x'.repeat(LIMIT)}"}`),
    expected: () => ({ status: 413, message: /exceeds the limit of 1024 bytes/ }),
  },
  {
    name: 'a chunked body that grows over http.maxBodyBytes',
    request: (route) => chunked(route, [JSON_TYPE], ['{"pad":"', 'x'.repeat(LIMIT), '"}']),
    expected: () => ({ status: 413, message: /exceeds the limit of 1024 bytes/ }),
  },
  {
    name: 'a chunked valid body',
    request: (route) => chunked(route, [JSON_TYPE], [route.validBody()]),
    expected: ok,
  },
  {
    name: 'malformed JSON',
    request: (route) => withBody(route, [JSON_TYPE], '{"topic":'),
    expected: () => ({ status: 400, message: /not valid (UTF-8 )?JSON/ }),
  },
];

const CASES = ROWS.flatMap((row) => ROUTES.map((route) => [row.name, `${route.method} ${route.path}`, row, route] as const));

describe('every route that takes a body answers the same on express and fastify, and bad bodies change nothing', () => {
  const brokers = new Map<HttpPlatform, BrokerApp>();
  const port = (platform: HttpPlatform) => (brokers.get(platform)!.app.getHttpServer().address() as AddressInfo).port;
  const storedIn = (platform: HttpPlatform) => brokers.get(platform)!.topics.get('t')?.tailOffset ?? 0;

  beforeAll(async () => {
    for (const platform of HTTP_PLATFORMS) {
      const broker = await startBroker({ http: { maxBodyBytes: LIMIT } }, { bodyParser: false }, platform);
      brokers.set(platform, broker);
      const created = await broker.request('POST', '/mmmq/dispatchers', { consumerId: 'existing', host: CONSUMER, pattern: 'u' });
      expect(created.status).toBe(201);
    }
  });
  afterAll(async () => {
    for (const broker of brokers.values()) await broker.close();
  });

  it.each(CASES)('%s to %s', async (_, __, row, route) => {
    const expected = row.expected(route);
    const answers = new Map<HttpPlatform, RawResponse>();
    for (const platform of HTTP_PLATFORMS) {
      const before = storedIn(platform);
      const answer = await rawRequest(port(platform), row.request(route));
      answers.set(platform, answer);
      expect({ platform, status: answer.status }).toEqual({ platform, status: expected.status });
      if (expected.status >= 400) {
        expect(answer.json).toEqual({ acknowledgement: 'NACK', message: expect.stringMatching(expected.message!) });
        expect(storedIn(platform)).toBe(before);
      }
    }
    const [express, fastify] = HTTP_PLATFORMS.map((platform) => answers.get(platform)!);
    if (expected.status >= 400) expect(fastify.json).toEqual(express.json);
  });
});
