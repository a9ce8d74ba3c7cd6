import { request } from 'node:http';
import { DEFAULT_MAX_BODY_BYTES } from '../../src';
import { BrokerApp, JsonResponse, startBroker } from './broker-app.fixture';

/** A valid publish body of exactly `bytes` bytes. */
function bodyOf(bytes: number): Buffer {
  const head = '{"topic":"big","content":"';
  const tail = '"}';
  return Buffer.from(head + 'x'.repeat(bytes - head.length - tail.length) + tail);
}

/** Sends `body` in chunks without a Content-Length, so only counting the stream can catch it. */
function postChunked(url: string, body: Buffer, chunkBytes = 64 * 1024): Promise<JsonResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${url}/mmmq/messages`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: new Headers(response.headers as Record<string, string>),
          body: JSON.parse(Buffer.concat(chunks).toString()),
        }),
      );
    });
    outgoing.on('error', reject);
    for (let start = 0; start < body.length; start += chunkBytes) {
      outgoing.write(body.subarray(start, start + chunkBytes));
    }
    outgoing.end();
  });
}

describe('bodies over http.maxBodyBytes (default 1 MiB) are refused with 413 and nothing is written', () => {
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker();
  });

  afterAll(() => broker.close());

  it('accepts a body of exactly the limit', async () => {
    const response = await broker.post('/mmmq/messages', bodyOf(DEFAULT_MAX_BODY_BYTES));
    expect(response.status).toBe(200);
    expect(broker.topics.get('big')?.tailOffset).toBe(1);
  });

  it('refuses a body whose Content-Length is one byte over', async () => {
    const response = await broker.post('/mmmq/messages', bodyOf(DEFAULT_MAX_BODY_BYTES + 1));
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ acknowledgement: 'NACK', message: expect.stringMatching(/1048576 bytes/) });
    expect(broker.topics.get('big')?.tailOffset).toBe(1);
  });

  it('refuses a chunked body once the bytes received pass the limit', async () => {
    const response = await postChunked(broker.url, bodyOf(2 * DEFAULT_MAX_BODY_BYTES));
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ acknowledgement: 'NACK' });
    expect(broker.topics.get('big')?.tailOffset).toBe(1);
  });

  it('refuses an oversized batch the same way', async () => {
    const response = await broker.post('/mmmq/messages/batch', Buffer.alloc(DEFAULT_MAX_BODY_BYTES + 1, 0x20));
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ acknowledgement: 'NACK' });
  });
});
