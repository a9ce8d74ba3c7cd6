import { createHash } from 'node:crypto';
import { decodeEnvelope } from '../../src/publish/message-envelope';
import { startBroker } from './broker-app.fixture';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const PUBLISH = '{"topic":"orders","content":{ "a" : 1.0 }}';

describe('the broker in a host app whose body parser runs before it', () => {
  it('explains how to create the app when the parser kept no raw bytes', async () => {
    const broker = await startBroker({}, { bodyParser: true });
    try {
      const response = await broker.post('/mmmq/messages', PUBLISH);
      expect(response.status).toBe(500);
      expect(response.body).toEqual({
        acknowledgement: 'NACK',
        message: expect.stringMatching(/bodyParser: false.*rawBody: true/),
      });
      expect(broker.topics.get('orders')).toBeUndefined();
    } finally {
      await broker.close();
    }
  });

  it('stores the exact bytes when the app keeps raw bodies', async () => {
    const broker = await startBroker({}, { rawBody: true });
    try {
      const { status, body } = await broker.post('/mmmq/messages', PUBLISH);
      expect(status).toBe(200);
      const stored = await broker.topics.get('orders')?.peek(body.offset as number);
      expect(sha256(decodeEnvelope(stored ?? Buffer.alloc(0)).content)).toBe(sha256('{ "a" : 1.0 }'));
    } finally {
      await broker.close();
    }
  });
});
