import { createHash } from 'node:crypto';
import type { NestApplicationOptions } from '@nestjs/common';
import { decodeEnvelope } from '../../src/format/message-envelope';
import { startBroker } from './broker-app.fixture';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const PUBLISH = '{"topic":"orders","content":{ "a" : 1.0 }}';

describe('the broker in a host app, whatever its body parser', () => {
  it.each<[string, NestApplicationOptions]>([
    ["Nest's default body parser", {}],
    ['rawBody: true', { rawBody: true }],
    ['no body parser', { bodyParser: false }],
  ])('stores the exact bytes with %s, and keeps its own limits and errors', async (_name, app) => {
    const broker = await startBroker({ http: { maxBodyBytes: 1024 } }, app);
    try {
      const { status, body } = await broker.post('/mmmq/messages', PUBLISH);
      expect(status).toBe(200);
      const stored = await broker.topics.get('orders')?.peek(body.offset as number);
      expect(sha256(decodeEnvelope(stored ?? Buffer.alloc(0)).content)).toBe(sha256('{ "a" : 1.0 }'));
      const tooLarge = await broker.post('/mmmq/messages', JSON.stringify({ topic: 'orders', content: 'x'.repeat(2048) }));
      expect(tooLarge).toMatchObject({ status: 413, body: { acknowledgement: 'NACK' } });
      const notJson = await broker.post('/mmmq/messages', '{"topic":');
      expect(notJson).toMatchObject({ status: 400, body: { acknowledgement: 'NACK' } });
    } finally {
      await broker.close();
    }
  });
});
