import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBoundedReply } from '../../src/http/read-bounded-reply';

describe('readBoundedReply', () => {
  let server: http.Server;
  let url: string;

  beforeAll(async () => {
    // Answers with as many bytes as the path asks for, in 64 KiB writes.
    server = http.createServer((request, response) => {
      let left = Number(request.url!.slice(1));
      response.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      while (left > 0) {
        response.write(chunk.subarray(0, Math.min(left, chunk.length)));
        left -= chunk.length;
      }
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const get = (bytes: number, maxBytes: number) =>
    new Promise<Buffer>((resolve, reject) => {
      const request = http.get(`${url}/${bytes}`, (response) => {
        readBoundedReply(request, response, maxBytes, (chunks) => resolve(Buffer.concat(chunks)));
      });
      request.on('error', reject);
    });

  it('hands over the whole body of a reply within the bound', async () => {
    const body = await get(200_000, 200_000);
    expect(body.length).toBe(200_000);
  });

  it('destroys the request with an error naming the bound once the reply grows past it', async () => {
    await expect(get(1_000_000, 100_000)).rejects.toThrow('reply longer than 100000 bytes');
  });
});
