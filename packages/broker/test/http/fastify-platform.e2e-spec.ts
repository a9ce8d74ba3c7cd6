import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { MmmqBrokerModule, registerRawBodyParser, TopicQueueContainer } from '../../src';
import { decodeEnvelope } from '../../src/internal';

describe('the broker on @nestjs/platform-fastify', () => {
  let rootDir: string;
  let app: INestApplication;
  let url: string;
  const post = async (path: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
    const response = await fetch(url + path, { method: 'POST', body, headers });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-fastify-'));
    app = await NestFactory.create(
      MmmqBrokerModule.forRoot({ persistence: { rootDir }, http: { maxBodyBytes: 64 * 1024 } }),
      new FastifyAdapter(),
      { bodyParser: false, logger: false },
    );
    registerRawBodyParser(app);
    await app.listen(0, '127.0.0.1');
    url = await app.getUrl();
  });
  afterAll(async () => {
    await app.close();
    await rm(rootDir, { recursive: true, force: true });
  });

  it('acknowledges a publish and stores the content bytes exactly as sent', async () => {
    const content = '{ "b" : [1,  2.50, "\\u00e9"],"a":null }';
    const response = await post('/mmmq/messages', `{"topic":"order.created","content":${content}}`);
    expect(response).toMatchObject({ status: 200, body: { acknowledgement: 'ACK', topic: 'order.created', offset: 0 } });
    const stored = decodeEnvelope((await app.get(TopicQueueContainer).get('order.created')!.peek(0))!);
    const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
    expect(sha(stored.content)).toBe(sha(content));
  });

  it('answers bad input, other content types and oversized bodies with its own NACK bodies', async () => {
    expect(await post('/mmmq/messages', '{"topic":"..","content":1}')).toMatchObject({
      status: 400,
      body: { acknowledgement: 'NACK' },
    });
    expect(await post('/mmmq/messages', '{"topic":"a","content":1}', { 'content-type': 'text/plain' })).toMatchObject({
      status: 415,
      body: { acknowledgement: 'NACK' },
    });
    const tooLarge = await post('/mmmq/messages', JSON.stringify({ topic: 'a', content: 'x'.repeat(70 * 1024) }));
    expect(tooLarge).toMatchObject({ status: 413, body: { acknowledgement: 'NACK' } });
    expect(app.get(TopicQueueContainer).get('a')).toBeUndefined();
  });

  it('serves batches and the dispatcher API', async () => {
    const batch = await post(
      '/mmmq/messages/batch',
      JSON.stringify({
        messages: [
          { topic: 'b', content: 1 },
          { topic: 'b', content: 2 },
        ],
      }),
    );
    expect(batch.body.messages).toEqual([expect.objectContaining({ offset: 0 }), expect.objectContaining({ offset: 1 })]);
    const created = await post('/mmmq/dispatchers', JSON.stringify({ consumerId: 'c', host: 'http://h:1', pattern: 'b' }));
    expect(created.status).toBe(201);
    expect(await (await fetch(`${url}/mmmq/dispatchers`)).json()).toEqual([expect.objectContaining({ consumerId: 'c' })]);
  });
});
