import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BrokerRequestError } from '../../src';
import { JsonHttpClient } from '../../src/support/json-http-client';

describe('JsonHttpClient', () => {
  let server: http.Server;
  let client: JsonHttpClient;
  let handle: (request: http.IncomingMessage, response: http.ServerResponse, body: string) => void;
  const sockets = new Set<import('node:net').Socket>();

  beforeEach(async () => {
    server = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => handle(request, response, body));
    });
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new JsonHttpClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { token: 'consume-token-123' });
  });

  afterEach(async () => {
    client.close();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('posts JSON with the bearer token and reads the JSON answer, whatever its status, over one kept-alive connection', async () => {
    const seen: { path?: string; authorization?: string; contentType?: string; body: string }[] = [];
    handle = (request, response, body) => {
      seen.push({ path: request.url, authorization: request.headers.authorization, contentType: request.headers['content-type'], body });
      response.writeHead(seen.length === 1 ? 200 : 409, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ n: seen.length }));
    };
    expect(await client.post('/mmmq/consumers/c%2F1/ack', { leases: ['a'] }, 2_000)).toEqual({ status: 200, data: { n: 1 } });
    expect(await client.post('/mmmq/consumers/c%2F1/ack', { leases: ['b'] }, 2_000)).toEqual({ status: 409, data: { n: 2 } });
    expect(seen).toEqual([
      {
        path: '/mmmq/consumers/c%2F1/ack',
        authorization: 'Bearer consume-token-123',
        contentType: 'application/json',
        body: '{"leases":["a"]}',
      },
      {
        path: '/mmmq/consumers/c%2F1/ack',
        authorization: 'Bearer consume-token-123',
        contentType: 'application/json',
        body: '{"leases":["b"]}',
      },
    ]);
    expect(sockets.size).toBe(1);
  });

  it('refuses an answer longer than any the broker sends (16 MiB), as a retriable failure', async () => {
    handle = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, ' ');
      const write = (left: number): void => {
        if (left === 0 || response.destroyed) return void response.end();
        if (response.write(chunk)) write(left - 1);
        else response.once('drain', () => write(left - 1));
      };
      response.on('error', () => undefined); // the client hangs up mid-answer; expected
      write(17);
    };
    const failure = client.post('/x', {}, 10_000);
    await expect(failure).rejects.toThrow(BrokerRequestError);
    await expect(failure).rejects.toThrow('reply longer than 16777216 bytes');
  });

  it('gives an answer that is not JSON as its text', async () => {
    handle = (_request, response) => response.writeHead(502).end('Bad Gateway');
    expect(await client.post('/x', {}, 2_000)).toEqual({ status: 502, data: 'Bad Gateway' });
  });

  it('fails as retriable when no whole answer comes within the time limit', async () => {
    handle = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': 100 });
      response.write('{"messages":'); // and never the rest
    };
    const started = Date.now();
    const failure = await client.post('/slow', {}, 200).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BrokerRequestError);
    expect(failure).toMatchObject({ retriable: true, message: expect.stringContaining('no answer within 200 ms') });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('fails as retriable when the connection closes before the whole answer came', async () => {
    handle = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': 100 });
      response.write('{"messages":', () => response.socket?.destroy());
    };
    await expect(client.post('/cut', {}, 2_000)).rejects.toMatchObject({
      retriable: true,
      message: expect.stringContaining('POST http://127.0.0.1:'),
    });
  });
});
