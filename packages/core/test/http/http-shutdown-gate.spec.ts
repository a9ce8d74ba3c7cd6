import { Agent, createServer, request as httpRequest, Server } from 'node:http';
import { type AddressInfo, connect, Socket } from 'node:net';
import { Logger } from '@nestjs/common';
import { HttpShutdownGate } from '../../src';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function send(port: number, path: string, agent: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ port, host: '127.0.0.1', path, method: 'POST', agent, headers: { 'content-type': 'application/json' } });
    request.once('response', (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.once('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    request.once('error', reject);
    request.end('{}');
  });
}

describe('HttpShutdownGate', () => {
  let server: Server;
  let port: number;
  let gate: HttpShutdownGate;
  /** Releases the requests the application holds: they stand for a publish waiting for its commit. */
  const held: Array<() => void> = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  beforeEach(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.once('end', () => held.push(() => response.end('{"acknowledgement":"ACK"}')));
    });
    gate = HttpShutdownGate.of(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterEach(async () => {
    agent.destroy();
    server.closeAllConnections();
    if (server.listening) await new Promise((resolve) => server.close(resolve));
  });

  it('lets a request in flight finish, with Connection: close, and answers a new one 503 with a NACK', async () => {
    const inFlight = send(port, '/mmmq/messages', new Agent());
    while (held.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const closed = gate.close(10_000);

    const late = await send(port, '/mmmq/messages', agent);
    expect(late.status).toBe(503);
    expect(late.headers).toMatchObject({ connection: 'close', 'retry-after': '1' });
    expect(JSON.parse(late.body)).toEqual({ acknowledgement: 'NACK', message: expect.stringMatching(/shutting down/) });
    const elsewhere = await send(port, '/orders', agent);
    expect(elsewhere.status).toBe(503);
    expect(JSON.parse(elsewhere.body)).toEqual({ statusCode: 503, message: expect.stringMatching(/shutting down/) });

    held.shift()?.();
    const finished = await inFlight;
    expect(finished).toMatchObject({ status: 200, body: '{"acknowledgement":"ACK"}' });
    expect(finished.headers.connection).toBe('close');
    await closed;
  });

  it('closes the connection of a request still running when the wait is over: its outcome is unknown, not "not taken"', async () => {
    const inFlight = send(port, '/mmmq/consumers/c/fetch', new Agent());
    while (held.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    await gate.close(50);
    await expect(inFlight).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(warn).toHaveBeenCalledWith(
      '1 request(s) still unanswered 50 ms into shutdown; closing their connections (outcome unknown to the client)',
    );
    warn.mockRestore();
    held.shift()?.();
  });

  it('answers 503 a request whose body has not arrived by the end of the wait: nothing of it was handled', async () => {
    const received = new Promise((resolve) => server.once('request', resolve));
    const stalled = new Promise<Answer>((resolve, reject) => {
      const request = httpRequest({ port, host: '127.0.0.1', path: '/mmmq/messages', method: 'POST', agent: new Agent() });
      request.once('response', (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.once('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      });
      request.once('error', reject);
      request.flushHeaders();
      request.write('{"id":');
    });
    await received;
    await gate.close(50);
    expect(await stalled).toMatchObject({ status: 503, headers: { connection: 'close' } });
  });

  it('closes a connection that sent part of a request head, so that the server closes', async () => {
    const accepted = new Promise((resolve) => server.once('connection', resolve));
    const client: Socket = connect(port, '127.0.0.1');
    client.on('error', () => undefined);
    client.write('POST /mmmq/messages HTTP/1.1\r\nHost: a\r\n');
    await accepted;
    const clientClosed = new Promise((resolve) => client.once('close', resolve));

    await gate.close(50);
    const serverClosed = new Promise<string>((resolve) => server.close(() => resolve('closed')));
    const verdict = await Promise.race([serverClosed, new Promise<string>((resolve) => setTimeout(resolve, 3_000, 'still open').unref())]);
    expect(verdict).toBe('closed');
    await clientClosed;
  });

  it('closes a connection opened after the wait is over that sends part of a head, so that the server closes', async () => {
    await gate.close(50);
    const accepted = new Promise((resolve) => server.once('connection', resolve));
    const client: Socket = connect(port, '127.0.0.1');
    client.on('error', () => undefined);
    client.write('POST /mmmq/messages HTTP/1.1\r\nHost: a\r\n');
    await accepted;

    const serverClosed = new Promise<string>((resolve) => server.close(() => resolve('closed')));
    const verdict = await Promise.race([serverClosed, new Promise<string>((resolve) => setTimeout(resolve, 3_000, 'still open').unref())]);
    expect(verdict).toBe('closed');
  });

  it('still answers 503 a request on a new connection after the wait is over', async () => {
    await gate.close(50);
    expect(await send(port, '/mmmq/messages', new Agent())).toMatchObject({ status: 503, headers: { connection: 'close' } });
  });

  it('is one per server, so a broker and a consumer in one application do not both answer a request', () => {
    expect(HttpShutdownGate.of(server)).toBe(gate);
    // The server's own handler and the gate's.
    expect(server.listeners('request')).toHaveLength(2);
  });
});
