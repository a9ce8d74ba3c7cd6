import { Injectable } from '@nestjs/common';
import { MessageContext, MMMQListener, MmmqConsumerModule, NonRetriableError, RETRY_AFTER_SECONDS } from '../../src';
import { FrontHandler } from '../../src/handling/front-handler';
import { ConsumerApp, ConsumerAppOptions, delivery, startConsumer } from '../support/consumer-app';
import { Gate } from '../support/gate';
import { OrderCreated, validOrder } from '../support/order-created.dto';
import { waitFor } from '../support/wait-for';

@Injectable()
class OrderListener {
  readonly received: Array<{ order: OrderCreated; context: MessageContext }> = [];
  gate: Gate | undefined;

  @MMMQListener('order.*')
  async onOrder(order: OrderCreated, context: MessageContext): Promise<unknown> {
    this.received.push({ order, context });
    await this.gate?.promise;
    if (order.orderId === 'throw') throw new Error('database unavailable');
    if (order.orderId === 'refuse') return new NonRetriableError('order o-9 was cancelled long ago');
    return undefined;
  }
}

const ID = 'billing.order-listener.on-order';

async function start(options: ConsumerAppOptions = {}, queueSize = 1000): Promise<ConsumerApp> {
  return startConsumer(
    { imports: [MmmqConsumerModule.forRoot({ app: 'billing', queueSize, workers: { max: 1 } })], providers: [OrderListener] },
    options,
  );
}

describe('POST /mmmq/messages', () => {
  describe.each([
    ['with Nest’s JSON body parser', {}],
    ['without a body parser', { bodyParser: false }],
    ['with rawBody: true', { rawBody: true }],
  ])('%s', (_name, options: ConsumerAppOptions) => {
    let consumer: ConsumerApp;
    beforeAll(async () => (consumer = await start(options)));
    afterAll(() => consumer.close());

    it('acknowledges a delivery after the handler ran, with the typed content and the context', async () => {
      const response = await consumer.deliver(
        ID,
        delivery(validOrder('o-1'), { id: 'm-7', offset: 7, deliveryCount: 2, redelivered: true }),
      );
      expect(response).toMatchObject({ status: 200, body: { acknowledgement: 'ACK' } });
      const [{ order, context }] = consumer.app.get(OrderListener).received.slice(-1);
      expect(order).toBeInstanceOf(OrderCreated);
      expect(context).toMatchObject({ id: 'm-7', topic: 'order.created', offset: 7, deliveryCount: 2, redelivered: true });
    });

    // With a body parser, the parser itself answers 400 before the endpoint runs; either way the broker retries.
    it('answers 400 to a body that is not JSON', async () => {
      const response = await consumer.deliver(ID, '{"id": ');
      expect(response.status).toBe(400);
      if (options.bodyParser === false) {
        expect(response.body).toMatchObject({ acknowledgement: 'NACK', message: expect.stringContaining('not valid JSON') });
      }
    });
  });

  describe('acknowledgements', () => {
    let consumer: ConsumerApp;
    beforeAll(async () => (consumer = await start()));
    afterAll(() => consumer.close());

    it('NACKs, retry allowed, with the error message when the handler throws', async () => {
      const response = await consumer.deliver(ID, delivery(validOrder('throw')));
      expect(response).toMatchObject({ status: 200, body: { acknowledgement: 'NACK', message: 'database unavailable' } });
      expect(response.body.retry).toBeUndefined();
    });

    it('NACKs with retry: false when the handler returns a NonRetriableError', async () => {
      const response = await consumer.deliver(ID, delivery(validOrder('refuse')));
      expect(response.body).toEqual({ acknowledgement: 'NACK', retry: false, message: 'order o-9 was cancelled long ago' });
    });

    it('NACKs with retry: false and the violations when the content is invalid, without calling the handler', async () => {
      const before = consumer.app.get(OrderListener).received.length;
      const response = await consumer.deliver(ID, delivery({ orderId: 42, quantity: 0, customer: {} }));
      expect(response.body).toMatchObject({ acknowledgement: 'NACK', retry: false });
      expect(response.body.message).toContain('content is not a valid OrderCreated');
      expect(response.body.message).toContain('orderId: orderId must be a string');
      expect(response.body.message).toContain('quantity: quantity must not be less than 1');
      expect(response.body.message).toContain('customer.name: name must be a string');
      expect(consumer.app.get(OrderListener).received).toHaveLength(before);
    });

    it('NACKs a delivery for an unknown or missing consumer id, naming the known ones', async () => {
      const unknown = await consumer.deliver('billing.nobody', delivery(validOrder()));
      expect(unknown.body).toMatchObject({ acknowledgement: 'NACK', message: expect.stringContaining(`"billing.nobody" (known: ${ID})`) });
      const missing = await consumer.deliver(undefined, delivery(validOrder()));
      expect(missing.body).toMatchObject({ acknowledgement: 'NACK', message: expect.stringContaining('consumer id null') });
    });

    it('answers 400 to a body without the delivery fields', async () => {
      const response = await consumer.deliver(ID, { topic: 'order.created', content: {} });
      expect(response).toMatchObject({
        status: 400,
        body: { acknowledgement: 'NACK', message: expect.stringContaining('id must be a string') },
      });
    });
  });

  describe('without a body parser, above maxBodyBytes', () => {
    let consumer: ConsumerApp;
    beforeAll(async () => {
      const module = MmmqConsumerModule.forRoot({ app: 'billing', maxBodyBytes: 256 });
      consumer = await startConsumer({ imports: [module], providers: [OrderListener] }, { bodyParser: false });
    });
    afterAll(() => consumer.close());

    it('answers 413 and does not run the handler', async () => {
      const response = await consumer.deliver(ID, delivery({ ...validOrder('big'), note: 'x'.repeat(1000) }));
      expect(response.status).toBe(413);
      expect(response.body).toMatchObject({ acknowledgement: 'NACK', message: expect.stringContaining('exceeds maxBodyBytes (256)') });
      expect(consumer.app.get(OrderListener).received).toEqual([]);
    });
  });

  describe('when the queue is full', () => {
    let consumer: ConsumerApp;
    beforeAll(async () => (consumer = await start({}, 1)));
    afterAll(() => consumer.close());

    it('answers 503 with Retry-After and does not run the handler', async () => {
      const listener = consumer.app.get(OrderListener);
      listener.gate = new Gate();
      const running = consumer.deliver(ID, delivery(validOrder('o-1')));
      await waitFor(() => listener.received.length === 1, 'the first handler to start');
      const waiting = consumer.deliver(ID, delivery(validOrder('o-2')));
      await waitFor(() => consumer.app.get(FrontHandler).load.waiting === 1, 'the second delivery to wait');

      const refused = await consumer.deliver(ID, delivery(validOrder('o-3')));
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
      expect(refused.body).toMatchObject({ acknowledgement: 'NACK', message: expect.stringContaining('queueSize 1') });

      listener.gate.open();
      expect((await running).body).toEqual({ acknowledgement: 'ACK' });
      expect((await waiting).body).toEqual({ acknowledgement: 'ACK' });
      expect(listener.received.map(({ order }) => order.orderId)).toEqual(['o-1', 'o-2']);
    });
  });

  describe('while shutting down', () => {
    it('answers 503 with Connection: close, so retries on a kept-alive connection cannot hold the server open', async () => {
      const consumer = await start();
      const listener = consumer.app.get(OrderListener);
      listener.gate = new Gate();
      const running = consumer.deliver(ID, delivery(validOrder('o-1')));
      await waitFor(() => listener.received.length === 1, 'the handler to start');
      const closing = consumer.close();

      const refused = await consumer.deliver(ID, delivery(validOrder('o-2')));
      expect(refused.status).toBe(503);
      expect(refused.headers.get('connection')).toBe('close');
      expect(refused.body.message).toContain('shutting down');

      listener.gate.open();
      expect((await running).body).toEqual({ acknowledgement: 'ACK' });
      await closing;
    });
  });
});
