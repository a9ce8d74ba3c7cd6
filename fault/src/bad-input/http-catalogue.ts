import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { Chunk } from './raw-exchange';
import { encodeRequest, JSON_TYPE, RawRequest } from './raw-request';

/** One hostile request and what the broker may do with it: answer 4xx (or, if `mayClose`, close). */
export interface HostileCase {
  group: string;
  name: string;
  route: string;
  chunks: Chunk[];
  /** Half-close after sending (a client that gave up mid-body). */
  endAfterSend?: boolean;
  /** An incomplete or unparseable request may be answered by closing the connection. */
  mayClose?: boolean;
  /** Waits for the broker's request timeouts (a stalled client), not the usual answer deadline. */
  slow?: boolean;
}

/** What the catalogue needs to know about the broker under test. */
export interface CatalogueContext {
  port: number;
  /** A registered dispatcher, so that PUT / dead-letter routes reach their validation. */
  victimId: string;
  victimHost: string;
  /** The topic the hostile publishes name when only something else is wrong; nobody subscribes to it. */
  victimTopic: string;
  /** Unique text in names that try to leave the data root, searched for afterwards. */
  marker: string;
}

/** A valid body for each JSON route: the header cases send it, so only the header is wrong. */
interface JsonRoute {
  method: string;
  path: string;
  valid: string;
}

/** Builds the whole HTTP catalogue against one broker. */
export function httpCatalogue(context: CatalogueContext): HostileCase[] {
  const { victimId, victimHost, victimTopic, marker } = context;
  const escape = `escape-${marker}`;
  const publish = (topic: string) => `{"topic":"${topic}","content":{"n":1}}`;
  const dispatcher = (fields: Record<string, unknown>) =>
    JSON.stringify({ consumerId: `new-${marker}`, host: victimHost, pattern: 'never.*', ...fields });
  const jsonRoutes: JsonRoute[] = [
    { method: 'POST', path: '/mmmq/messages', valid: publish(victimTopic) },
    { method: 'POST', path: '/mmmq/messages/batch', valid: `{"messages":[${publish(victimTopic)}]}` },
    { method: 'POST', path: '/mmmq/dispatchers', valid: dispatcher({}) },
    { method: 'PUT', path: `/mmmq/dispatchers/${victimId}`, valid: JSON.stringify({ host: victimHost, pattern: 'changed.*' }) },
    { method: 'POST', path: `/mmmq/dead-letters/${victimId}/redrive`, valid: '{}' },
  ];
  const cases: HostileCase[] = [];
  const add = (group: string, name: string, request: RawRequest, extra: Partial<HostileCase> = {}) =>
    cases.push({
      group,
      name,
      route: `${request.method} ${request.path.slice(0, 60)}`,
      chunks: [{ bytes: encodeRequest(request, context.port) }],
      ...extra,
    });
  const json = (method: string, path: string, body: string | Buffer): RawRequest => ({ method, path, headers: [JSON_TYPE], body });

  // Bodies that are not JSON, or not the JSON a route expects, on every JSON route.
  const malformed: Array<[string, string | Buffer]> = [
    ['empty object', '{}'],
    ['open brace', '{'],
    ['truncated member', '{"topic":'],
    ['missing value', '{"topic":"a","content":}'],
    ['reversed braces', '}{'],
    ['trailing garbage', '{"topic":"a","content":1}garbage'],
    ['two documents', '{"topic":"a","content":1}{"topic":"a","content":2}'],
    ['byte order mark', '\uFEFF{"topic":"a","content":1}'],
    ['single quotes', "{'topic':'a','content':1}"],
    ['NaN', '{"topic":"a","content":NaN}'],
    ['Infinity', '{"topic":"a","content":Infinity}'],
    ['trailing comma', '{"topic":"a","content":1,}'],
    ['comment', '{"topic":"a",/* x */"content":1}'],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x74, 0x22, 0x3a, 0xff, 0xfe, 0x7d])],
    ['overlong UTF-8', Buffer.concat([Buffer.from('{"topic":"'), Buffer.from([0xc0, 0xae]), Buffer.from('","content":1}')])],
    ['NUL bytes', Buffer.from('{"topic":"a"\u0000,"content":1}')],
    ['top-level array', '[]'],
    ['top-level null', 'null'],
    ['top-level string', '"text"'],
    ['top-level number', '12345'],
    ['only whitespace', '   \r\n\t '],
    ['unterminated string', '{"topic":"a'],
    ['deep nesting, 100000 levels', '['.repeat(100_000) + ']'.repeat(100_000)],
  ];
  for (const route of jsonRoutes) {
    for (const [name, body] of malformed) {
      // `{}` is the documented "redrive everything" body.
      if (name !== 'empty object' || !route.path.endsWith('/redrive')) add('malformed JSON', name, json(route.method, route.path, body));
    }
  }

  // Topics that must never become directories.
  const badTopics: Array<[string, string]> = [
    ['..', '".."'],
    ['.', '"."'],
    ['empty', '""'],
    ['blank', '" "'],
    ['slash', '"a/b"'],
    ['backslash', '"a\\\\b"'],
    ['absolute path', '"/etc"'],
    ['parent traversal', `"../../${escape}"`],
    ['traversal in name object', `{"name":"../${escape}"}`],
    ['NUL', '"a\\u0000b"'],
    ['250 characters', `"${'a'.repeat(250)}"`],
    ['non-ASCII letter', '"é"'],
    ['umlaut segment', '"ü.topic"'],
    ['emoji', '"\ud83d\ude00"'],
    ['leading space', '" a"'],
    ['trailing space', '"a "'],
    ['empty segment', '"a..b"'],
    ['leading dot', '".a"'],
    ['trailing dot', '"a."'],
    ['reserved prefix', '"__reserved"'],
    ['dead-letter topic', `"__dlq.${victimId}"`],
    ['percent-encoded dots', '"%2e%2e"'],
    ['newline', '"a\\nb"'],
    ['tab', '"a\\tb"'],
    ['glob', '"a*"'],
    ['hash', '"a#b"'],
    ['drive letter', '"C:\\\\x"'],
    ['case twin of an existing topic', `"${victimTopic.toUpperCase()}"`],
    ['number', '1'],
    ['null', 'null'],
    ['array', '["a"]'],
    ['empty object', '{}'],
    ['name is a number', '{"name":1}'],
    ['boolean', 'true'],
  ];
  for (const [name, topic] of badTopics) {
    add('bad topic', name, json('POST', '/mmmq/messages', `{"topic":${topic},"content":1}`));
    add('bad topic (batch)', name, json('POST', '/mmmq/messages/batch', `{"messages":[{"topic":${topic},"content":1}]}`));
  }

  // Fields of the right names and the wrong types or sizes.
  const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
  const badMessages: Array<[string, string]> = [
    ['content missing', `{"topic":"${victimTopic}"}`],
    ['content nested 65 levels', `{"topic":"${victimTopic}","content":${deep(65)}}`],
    ['content nested 100000 levels', `{"topic":"${victimTopic}","content":${deep(100_000)}}`],
    ['id is a number', `{"topic":"${victimTopic}","content":1,"id":5}`],
    ['id is empty', `{"topic":"${victimTopic}","content":1,"id":""}`],
    ['id has spaces', `{"topic":"${victimTopic}","content":1,"id":"a b"}`],
    ['id of 300 characters', `{"topic":"${victimTopic}","content":1,"id":"${'i'.repeat(300)}"}`],
    ['id is an object', `{"topic":"${victimTopic}","content":1,"id":{}}`],
    ['id with a NUL', `{"topic":"${victimTopic}","content":1,"id":"a\\u0000"}`],
    ['id with a newline', `{"topic":"${victimTopic}","content":1,"id":"a\\nb"}`],
    ['headers is an array', `{"topic":"${victimTopic}","content":1,"headers":[]}`],
    ['headers is a string', `{"topic":"${victimTopic}","content":1,"headers":"h"}`],
    ['header value is an object', `{"topic":"${victimTopic}","content":1,"headers":{"a":{}}}`],
    ['header value is an array', `{"topic":"${victimTopic}","content":1,"headers":{"a":[1]}}`],
    ['header value is infinite', `{"topic":"${victimTopic}","content":1,"headers":{"a":1e400}}`],
    ['65 headers', `{"topic":"${victimTopic}","content":1,"headers":{${Array.from({ length: 65 }, (_, i) => `"h${i}":1`).join(',')}}}`],
    ['header name of 300 characters', `{"topic":"${victimTopic}","content":1,"headers":{"${'h'.repeat(300)}":1}}`],
    ['header value of 5000 characters', `{"topic":"${victimTopic}","content":1,"headers":{"h":"${'v'.repeat(5000)}"}}`],
  ];
  for (const [name, body] of badMessages) {
    add('bad message', name, json('POST', '/mmmq/messages', body));
    add('bad message (batch)', name, json('POST', '/mmmq/messages/batch', `{"messages":[${publish(victimTopic)},${body}]}`));
  }
  const badBatches: Array<[string, string]> = [
    ['empty', '{"messages":[]}'],
    ['messages is an object', '{"messages":{}}'],
    ['messages is a string', '{"messages":"m"}'],
    ['messages missing', '{}'],
    ['null message', '{"messages":[null]}'],
    ['number message', '{"messages":[1]}'],
    // Batches may span topics (storage v2); one invalid topic among them refuses the whole batch.
    ['two topics, the second invalid', `{"messages":[${publish(victimTopic)},{"topic":"${victimTopic}..other","content":1}]}`],
    ['1001 messages', `{"messages":[${Array.from({ length: 1001 }, () => publish(victimTopic)).join(',')}]}`],
  ];
  for (const [name, body] of badBatches) add('bad batch', name, json('POST', '/mmmq/messages/batch', body));

  // Dispatcher definitions.
  const badDispatchers: Array<[string, string]> = [
    ['consumerId traversal', dispatcher({ consumerId: `../${escape}` })],
    ['consumerId empty', dispatcher({ consumerId: '' })],
    ['consumerId with a space', dispatcher({ consumerId: 'a b' })],
    ['consumerId of 300 characters', dispatcher({ consumerId: 'c'.repeat(300) })],
    ['consumerId leading dot', dispatcher({ consumerId: '.a' })],
    ['consumerId a number', dispatcher({ consumerId: 1 })],
    ['consumerId taken', dispatcher({ consumerId: victimId })],
    ['host with another scheme', dispatcher({ host: 'ftp://127.0.0.1:21' })],
    ['host without a port', dispatcher({ host: 'http://127.0.0.1' })],
    ['host with port 99999', dispatcher({ host: 'http://127.0.0.1:99999' })],
    ['host javascript:', dispatcher({ host: 'javascript:alert(1)' })],
    ['host with a path', dispatcher({ host: 'http://127.0.0.1:1/path' })],
    ['host empty', dispatcher({ host: '' })],
    ['host a number', dispatcher({ host: 5 })],
    ['host unknown protocol', dispatcher({ host: { protocol: 'GOPHER', address: '127.0.0.1', port: 1 } })],
    ['host empty address', dispatcher({ host: { protocol: 'HTTP', address: '', port: 1 } })],
    ['host negative port', dispatcher({ host: { protocol: 'HTTP', address: '127.0.0.1', port: -1 } })],
    ['SSRF: cloud metadata address', dispatcher({ host: 'http://169.254.169.254:80' })],
    ['SSRF: link-local IPv6 metadata', dispatcher({ host: 'http://[fd00:ec2::254]:80' })],
    ['SSRF: metadata host name', dispatcher({ host: 'http://metadata.google.internal:80' })],
    ['SSRF: any address', dispatcher({ host: 'http://0.0.0.0:80' })],
    ['SSRF: private range 10/8', dispatcher({ host: 'http://10.0.0.1:80' })],
    ['SSRF: private range 192.168/16', dispatcher({ host: 'http://192.168.1.1:80' })],
    ['SSRF: IPv4-mapped metadata', dispatcher({ host: 'http://[::ffff:169.254.169.254]:80' })],
    ['pattern empty', dispatcher({ pattern: '' })],
    ['pattern blank', dispatcher({ pattern: ' ' })],
    ['pattern empty segment', dispatcher({ pattern: 'a..b' })],
    ['pattern bracket', dispatcher({ pattern: '[' })],
    ['pattern of 10000 characters', dispatcher({ pattern: 'p'.repeat(10_000) })],
    ['pattern with NUL', dispatcher({ pattern: 'a\u0000' })],
    ['pattern a number', dispatcher({ pattern: 1 })],
    ['unknown field', dispatcher({ extra: 1 })],
    ['batchSize 0', dispatcher({ batchSize: 0 })],
    ['batchSize 1001', dispatcher({ batchSize: 1001 })],
    ['batchSize a string', dispatcher({ batchSize: '5' })],
    ['batchSize fractional', dispatcher({ batchSize: 1.5 })],
    ['maxInFlight 0', dispatcher({ maxInFlight: 0 })],
    ['maxInFlight 17', dispatcher({ maxInFlight: 17 })],
    ['startFrom unknown', dispatcher({ startFrom: 'middle' })],
  ];
  for (const [name, body] of badDispatchers) add('bad dispatcher', name, json('POST', '/mmmq/dispatchers', body));
  const put = (body: Record<string, unknown>) => JSON.stringify({ host: victimHost, pattern: 'changed.*', ...body });
  const badReplacements: Array<[string, string, string]> = [
    ['consumerId differs from the path', victimId, put({ consumerId: 'other' })],
    ['host invalid', victimId, put({ host: 'ftp://127.0.0.1:21' })],
    ['SSRF host', victimId, put({ host: 'http://169.254.169.254:80' })],
    ['pattern invalid', victimId, put({ pattern: '' })],
    ['unknown consumer', `unknown-${marker}`, put({})],
    ['traversal in the path', `..%2F..%2F${escape}`, put({})],
    ['NUL in the path', 'a%00b', put({})],
  ];
  for (const [name, id, body] of badReplacements) add('bad dispatcher replacement', name, json('PUT', `/mmmq/dispatchers/${id}`, body));
  for (const id of [`unknown-${marker}`, `..%2F..%2F${escape}`, '%2e%2e', 'a%00b', '%20', 'x'.repeat(300)]) {
    add('bad dispatcher id', `DELETE ${id.slice(0, 20)}`, { method: 'DELETE', path: `/mmmq/dispatchers/${id}` });
    add('bad dispatcher id', `GET ${id.slice(0, 20)}`, { method: 'GET', path: `/mmmq/dispatchers/${id}` });
  }

  // Dead letters.
  for (const query of ['limit=0', 'limit=-1', 'limit=abc', 'limit=1001', 'limit=1e400', 'from=-1', 'from=abc', 'from=1.5', 'from=1e400']) {
    add('bad dead-letter query', query, { method: 'GET', path: `/mmmq/dead-letters/${victimId}?${query}` });
  }
  for (const id of [`unknown-${marker}`, `..%2F..%2F${escape}`, 'a%00b']) {
    add('bad dead-letter consumer', `GET ${id.slice(0, 20)}`, { method: 'GET', path: `/mmmq/dead-letters/${id}` });
    add('bad dead-letter consumer', `redrive ${id.slice(0, 20)}`, json('POST', `/mmmq/dead-letters/${id}/redrive`, '{}'));
  }
  for (const [name, body] of [
    ['ids a string', '{"ids":"x"}'],
    ['ids numbers', '{"ids":[1,2]}'],
    ['ids an object', '{"ids":{}}'],
  ]) {
    add('bad redrive', name, json('POST', `/mmmq/dead-letters/${victimId}/redrive`, body));
  }

  // Headers, on every JSON route with an otherwise valid body.
  for (const route of jsonRoutes) {
    const { method, path, valid } = route;
    const body = Buffer.from(valid);
    const redrive = path.endsWith('/redrive');
    // A redrive without a body redrives every dead letter (docs/delivery.md): only the other routes need one.
    if (!redrive) add('no body', 'no body, no Content-Length', { method, path, headers: [JSON_TYPE] });
    if (!redrive) add('no body', 'Content-Length: 0, no Content-Type', { method, path, body: '' });
    add('content type', 'text/plain (a browser form)', { method, path, headers: [['Content-Type', 'text/plain']], body });
    add('content type', 'form-urlencoded', { method, path, headers: [['Content-Type', 'application/x-www-form-urlencoded']], body });
    add('content type', 'multipart', { method, path, headers: [['Content-Type', 'multipart/form-data; boundary=x']], body });
    add('content type', 'none', { method, path, body });
    add('content encoding', 'gzip', { method, path, headers: [JSON_TYPE, ['Content-Encoding', 'gzip']], body: gzipSync(body) });
    add('content encoding', 'deflate', { method, path, headers: [JSON_TYPE, ['Content-Encoding', 'deflate']], body: deflateSync(body) });
    add('content encoding', 'br', { method, path, headers: [JSON_TYPE, ['Content-Encoding', 'br']], body: brotliCompressSync(body) });
    add('content encoding', 'unknown', { method, path, headers: [JSON_TYPE, ['Content-Encoding', 'x-unknown']], body });
    for (const encoding of ['gzip', 'br', 'deflate']) {
      add('content encoding', `${encoding} declared, body sent plain`, {
        method,
        path,
        headers: [JSON_TYPE, ['Content-Encoding', encoding]],
        body,
      });
    }
    add('cross origin', 'Origin of another site', { method, path, headers: [JSON_TYPE, ['Origin', 'http://evil.example']], body });
    add('cross origin', 'Origin null', { method, path, headers: [JSON_TYPE, ['Origin', 'null']], body });
    add('host', 'Host of another site (DNS rebinding)', { method, path, headers: [JSON_TYPE], body, host: 'evil.example' });
    add('host', 'Host of another site with the port', { method, path, headers: [JSON_TYPE], body, host: `evil.example:${context.port}` });
    add(
      'content length',
      'declares 10 more bytes, then the client gives up',
      { method, path, headers: [JSON_TYPE], body, contentLength: body.length + 10 },
      { endAfterSend: true, mayClose: true },
    );
    add(
      'content length',
      'declares 5 fewer bytes',
      { method, path, headers: [JSON_TYPE], body, contentLength: body.length - 5 },
      { mayClose: true },
    );
    add('content length', 'negative', { method, path, headers: [JSON_TYPE], body, contentLength: -1 } as RawRequest, { mayClose: true });
    add(
      'content length',
      'not a number',
      { method, path, headers: [JSON_TYPE, ['Content-Length', 'abc']], body, contentLength: 'none' },
      { mayClose: true },
    );
    add(
      'content length',
      'Content-Length and Transfer-Encoding',
      {
        method,
        path,
        headers: [JSON_TYPE, ['Transfer-Encoding', 'chunked']],
        body: `${body.length.toString(16)}\r\n${valid}\r\n0\r\n\r\n`,
      },
      { mayClose: true },
    );
    add(
      'size',
      'body of 1.5 MiB (limit 1 MiB)',
      json(method, path, Buffer.from(`{"topic":"${victimTopic}","content":"${'x'.repeat(1.5 * 2 ** 20)}"}`)),
      { mayClose: true },
    );
    add(
      'size',
      'chunked body of 1.5 MiB',
      {
        method,
        path,
        headers: [JSON_TYPE, ['Transfer-Encoding', 'chunked']],
        body: chunked(`{"topic":"${victimTopic}","content":"${'x'.repeat(1.5 * 2 ** 20)}"}`),
        contentLength: 'none',
      },
      { mayClose: true },
    );
    // Node keeps the first 2000 headers and drops the rest silently, Content-Type here among them.
    add(
      'headers',
      '2001 headers, Content-Type last',
      { method, path, headers: [...manyHeaders(2001), JSON_TYPE], body },
      { mayClose: true },
    );
    add(
      'headers',
      'one header of 20 KiB',
      { method, path, headers: [JSON_TYPE, ['X-Big', 'b'.repeat(20 * 1024)]], body },
      { mayClose: true },
    );
    add('headers', 'header with a NUL', { method, path, headers: [JSON_TYPE, ['X-Nul', 'a\u0000b']], body }, { mayClose: true });
  }
  // Reading routes with a foreign Host or Origin (a rebound page reading the broker's state).
  for (const path of ['/mmmq/dispatchers', '/mmmq/subscriptions', `/mmmq/dead-letters/${victimId}`]) {
    add('host', 'GET with Host of another site', { method: 'GET', path, host: 'evil.example' });
  }
  // A pattern whose matching would backtrack if globs were regular expressions; the scenario then publishes to a topic it
  // would be matched against, and restarts the broker.
  add('hostile pattern', '40 × a* then b', json('POST', '/mmmq/dispatchers', dispatcher({ pattern: `${'a*'.repeat(40)}b` })));
  add(
    'hostile pattern',
    '40 × a* then b (replacing a dispatcher)',
    json('PUT', `/mmmq/dispatchers/${victimId}`, put({ pattern: `${'a*'.repeat(40)}b` })),
  );
  add('hostile pattern', '500 × *', json('POST', '/mmmq/dispatchers', dispatcher({ pattern: '*.'.repeat(500) + '*' })));

  // The request line itself.
  const protocolGarbage: Array<[string, Buffer]> = [
    ['binary garbage', Buffer.from([0, 1, 2, 3, 0xff, 0xfe, 13, 10, 13, 10])],
    ['HTTP/0.9', Buffer.from('GET /mmmq/dispatchers\r\n')],
    ['HTTP/2 preface on HTTP/1', Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n')],
    ['unknown method', encodeRequest({ method: 'FOO', path: '/mmmq/messages' }, context.port)],
    ['TRACE', encodeRequest({ method: 'TRACE', path: '/mmmq/messages' }, context.port)],
    [
      'PATCH a dispatcher',
      encodeRequest({ method: 'PATCH', path: `/mmmq/dispatchers/${victimId}`, headers: [JSON_TYPE], body: '{}' }, context.port),
    ],
    ['GET on the publish route', encodeRequest({ method: 'GET', path: '/mmmq/messages' }, context.port)],
    [
      'absolute URI of another host',
      encodeRequest({ method: 'GET', path: 'http://evil.example/mmmq/dispatchers', host: 'evil.example' }, context.port),
    ],
    ['path traversal', encodeRequest({ method: 'GET', path: `/mmmq/%2e%2e/%2e%2e/${escape}` }, context.port)],
    ['raw dot segments', encodeRequest({ method: 'GET', path: `/mmmq/../../../${escape}` }, context.port)],
    ['path of 100 KB', encodeRequest({ method: 'GET', path: `/mmmq/dispatchers/${'x'.repeat(100_000)}` }, context.port)],
    ['space in the path', Buffer.from(`GET /mmmq/dispatchers/a b HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)],
    ['no Host header', Buffer.from('GET /mmmq/dispatchers HTTP/1.1\r\nConnection: close\r\n\r\n')],
    [
      'two Host headers',
      Buffer.from(`GET /mmmq/dispatchers HTTP/1.1\r\nHost: 127.0.0.1:${context.port}\r\nHost: evil.example\r\nConnection: close\r\n\r\n`),
    ],
    ['bare LF line endings', Buffer.from(`POST /mmmq/messages HTTP/1.1\nHost: 127.0.0.1\nContent-Length: 2\n\n{}`)],
    ['header without a colon', Buffer.from(`GET /mmmq/dispatchers HTTP/1.1\r\nHost: 127.0.0.1\r\nbroken header\r\n\r\n`)],
  ];
  for (const [name, bytes] of protocolGarbage) {
    cases.push({ group: 'protocol', name, route: 'any', chunks: [{ bytes }], mayClose: true, endAfterSend: name === 'HTTP/0.9' });
  }

  // Clients that stall: the broker must time them out.
  const valid = Buffer.from(publish(victimTopic));
  const head = (length: number) =>
    Buffer.from(
      `POST /mmmq/messages HTTP/1.1\r\nHost: 127.0.0.1:${context.port}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`,
    );
  const slow: Array<[string, Chunk[]]> = [
    ['connects and sends nothing', []],
    [
      'headers never finished',
      [{ bytes: Buffer.from(`POST /mmmq/messages HTTP/1.1\r\nHost: 127.0.0.1:${context.port}\r\nX-Slow: 1\r\n`) }],
    ],
    ['body never finished', [{ bytes: Buffer.concat([head(valid.length + 100), valid]) }]],
    [
      'body trickling a byte a second',
      [{ bytes: head(valid.length) }, ...[...valid].map((byte) => ({ bytes: Buffer.from([byte]), delayMs: 1000 }))],
    ],
  ];
  for (const [name, chunks] of slow) {
    cases.push({ group: 'slow client', name, route: 'POST /mmmq/messages', chunks, slow: true, mayClose: true });
  }
  return cases;
}

function chunked(text: string): Buffer {
  const body = Buffer.from(text);
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; at += 64 * 1024) {
    const piece = body.subarray(at, at + 64 * 1024);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

function manyHeaders(count: number): Array<[string, string]> {
  return Array.from({ length: count }, (_, i) => [`X-H${i}`, 'v'] as [string, string]);
}
