import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Reply } from '@mmmq/core';
import { ReplyCollector } from '../../src/request/reply-collector';

/** A broker's relay by hand: `answer` says how the collection is answered. */
function relayServer(answer: (request: http.IncomingMessage, response: http.ServerResponse) => void): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => answer(request, response));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const urlOf = (server: http.Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const close = (server: http.Server) => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
};

describe("collecting an inbox's replies from the broker's relay", () => {
  let server: http.Server | undefined;
  let collector: ReplyCollector | undefined;
  afterEach(async () => {
    collector?.close();
    if (server) await close(server);
  });

  it('asks for a stream and hands over each reply as its line arrives, before the answer ends', async () => {
    let accept: string | undefined;
    let finish: () => void = () => undefined;
    server = await relayServer((request, response) => {
      accept = request.headers.accept;
      response.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8' });
      // The second line comes in two chunks, split inside a character: it is read whole.
      const second = Buffer.from(`${JSON.stringify({ inbox: 'i', correlationId: 'c-2', content: 'crème' })}\n`);
      const split = second.indexOf(Buffer.from('è')) + 1;
      response.write(`${JSON.stringify({ inbox: 'i', correlationId: 'c-1', content: 1 })}\n`);
      response.write(second.subarray(0, split));
      finish = () => response.end(second.subarray(split));
    });
    collector = new ReplyCollector(urlOf(server), 'i');
    const received: Reply[] = [];
    const collected = collector.collect(5_000, new AbortController().signal, (reply) => received.push(reply));
    await new Promise<void>((resolve) => {
      const check = setInterval(() => received.length === 1 && (clearInterval(check), resolve()), 5);
    });
    expect(accept).toContain('application/x-ndjson');
    finish();
    await collected;
    expect(received).toEqual([
      { inbox: 'i', correlationId: 'c-1', content: 1 },
      { inbox: 'i', correlationId: 'c-2', content: 'crème' },
    ]);
  });

  it("reads an older broker's long poll answer, JSON whatever it was asked", async () => {
    server = await relayServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ replies: [{ inbox: 'i', correlationId: 'c-3', error: { name: 'RangeError', message: 'no' } }] }));
    });
    collector = new ReplyCollector(urlOf(server), 'i');
    const received: Reply[] = [];
    await collector.collect(5_000, new AbortController().signal, (reply) => received.push(reply));
    expect(received).toEqual([{ inbox: 'i', correlationId: 'c-3', error: { name: 'RangeError', message: 'no' } }]);
  });

  it('fails the collection on a line that is not a reply', async () => {
    server = await relayServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      response.end(`${JSON.stringify({ inbox: 'i', correlationId: 'c-4', stack: 'at …' })}\n`);
    });
    collector = new ReplyCollector(urlOf(server), 'i');
    await expect(collector.collect(5_000, new AbortController().signal, () => undefined)).rejects.toThrow(/unknown field\(s\) stack/);
  });
});
