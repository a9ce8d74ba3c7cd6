import type { AddressInfo } from 'node:net';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { CONSUMER_ID_HEADER, MESSAGES_PATH, SigningSecret } from '@mmmq/core';
import { MMMQListener, MmmqConsumerModule, MmmqConsumerOptions } from '../../src';
import { ConsumerApp, ConsumerAppOptions, delivery, startConsumer } from '../support/consumer-app';
import { OrderCreated, validOrder } from '../support/order-created.dto';

@Injectable()
class OrderListener {
  readonly received: OrderCreated[] = [];

  @MMMQListener('order.*')
  onOrder(order: OrderCreated): void {
    this.received.push(order);
  }
}

const ID = 'billing.order-listener.on-order';
const CURRENT = SigningSecret.generate();
const PREVIOUS = SigningSecret.generate();
const STRANGER = SigningSecret.generate();

interface Signing {
  secret?: SigningSecret;
  id?: string;
  timestamp?: number;
  /** Replaces the computed signature header. */
  signature?: string;
  omit?: string[];
}

/** POSTs the body bytes as the broker does, with Standard Webhooks headers made from `signing`. */
async function push(consumer: ConsumerApp, body: string, signing: Signing = {}, path = MESSAGES_PATH) {
  const { secret = CURRENT, id = 'billing:order.created:0', timestamp = Math.floor(Date.now() / 1000) } = signing;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    [CONSUMER_ID_HEADER]: ID,
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signing.signature ?? secret.sign(id, timestamp, Buffer.from(body)),
  };
  for (const name of signing.omit ?? []) delete headers[name];
  const response = await fetch(consumer.url + path, { method: 'POST', headers, body });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

async function start(options: ConsumerAppOptions, consumerOptions: MmmqConsumerOptions = {}): Promise<ConsumerApp> {
  const module = MmmqConsumerModule.forRoot({ app: 'billing', signingSecrets: [CURRENT.reveal(), PREVIOUS.reveal()], ...consumerOptions });
  return startConsumer({ imports: [module], providers: [OrderListener] }, options);
}

// Spacing a JSON re-serialisation would drop: the signature covers exactly these bytes.
const BODY = JSON.stringify(delivery(validOrder('o-1')), null, 1);

describe('POST /mmmq/messages with signingSecrets', () => {
  describe.each([
    ['with the default body parser', {}],
    ['with rawBody: true', { rawBody: true }],
    ['without a body parser', { bodyParser: false }],
  ])('%s', (_name, options: ConsumerAppOptions) => {
    let consumer: ConsumerApp;
    beforeAll(async () => (consumer = await start(options)));
    afterAll(() => consumer.close());
    const received = () => consumer.app.get(OrderListener).received.length;

    it('handles a push signed with the current secret, or the previous one (rotation)', async () => {
      expect(await push(consumer, BODY)).toEqual({ status: 200, body: { acknowledgement: 'ACK' } });
      expect(await push(consumer, BODY, { secret: PREVIOUS })).toEqual({ status: 200, body: { acknowledgement: 'ACK' } });
      expect(received()).toBe(2);
    });

    it.each<[string, Signing, string]>([
      ['a secret it does not know', { secret: STRANGER }, 'No v1 signature in webhook-signature matches a known signing secret'],
      ['no webhook-signature', { omit: ['webhook-signature'] }, 'The push is not signed: missing webhook-signature'],
      [
        'no headers at all',
        { omit: ['webhook-id', 'webhook-timestamp', 'webhook-signature'] },
        'missing webhook-id, webhook-timestamp, webhook-signature',
      ],
      ['a stale timestamp', { timestamp: Math.floor(Date.now() / 1000) - 301 }, 'the tolerance is ±300 s'],
      ['a timestamp from the future', { timestamp: Math.floor(Date.now() / 1000) + 3600 }, 's in the future'],
      ['a garbled signature', { signature: 'v1,AAAA' }, 'matches a known signing secret'],
    ])('answers 401 NACK to a push with %s, without handling it', async (_, signing, message) => {
      const before = received();
      const response = await push(consumer, BODY, signing);
      expect(response).toEqual({ status: 401, body: { acknowledgement: 'NACK', message: expect.stringContaining(message) } });
      expect(received()).toBe(before);
    });

    it('answers 401 to a body changed after signing, even by whitespace', async () => {
      const headersFor = JSON.stringify(delivery(validOrder('o-1')));
      const signature = CURRENT.sign('billing:order.created:0', Math.floor(Date.now() / 1000), Buffer.from(headersFor));
      expect((await push(consumer, BODY, { signature })).status).toBe(401);
    });

    it('checks batches too', async () => {
      const batch = JSON.stringify({ messages: [delivery(validOrder('o-2'))] });
      expect((await push(consumer, batch, { secret: STRANGER }, `${MESSAGES_PATH}/batch`)).status).toBe(401);
      const accepted = await push(consumer, batch, {}, `${MESSAGES_PATH}/batch`);
      expect(accepted).toEqual({ status: 200, body: { acknowledgements: [{ acknowledgement: 'ACK' }] } });
    });
  });

  it('verifies on fastify with rawBody: true', async () => {
    @Module({
      imports: [MmmqConsumerModule.forRoot({ app: 'billing', signingSecrets: [CURRENT.reveal()] })],
      providers: [OrderListener],
    })
    class FastifyConsumerModule {}
    const app = await NestFactory.create(FastifyConsumerModule, new FastifyAdapter(), { rawBody: true, logger: false });
    await app.listen(0, '127.0.0.1');
    const consumer = { url: `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}` } as ConsumerApp;
    try {
      expect((await push(consumer, BODY)).status).toBe(200);
      expect((await push(consumer, BODY, { secret: STRANGER })).status).toBe(401);
      expect(app.get(OrderListener).received).toHaveLength(1);
    } finally {
      await app.close();
    }
  });

  it('takes another tolerance', async () => {
    const consumer = await start({ rawBody: true }, { signatureToleranceSeconds: 10 });
    try {
      const response = await push(consumer, BODY, { timestamp: Math.floor(Date.now() / 1000) - 60 });
      expect(response).toMatchObject({ status: 401, body: { message: expect.stringContaining('the tolerance is ±10 s') } });
    } finally {
      await consumer.close();
    }
  });
});
