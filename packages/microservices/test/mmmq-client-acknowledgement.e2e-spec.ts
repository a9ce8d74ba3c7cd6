import { BrokerUnreachableError, ProduceError, RequestReplyUnavailableError } from '@mmmq/producer';
import { freePort, waitFor } from '@mmmq/test-support';
import { lastValueFrom } from 'rxjs';
import { FakeBroker, startFakeBroker } from './support/fake-broker';
import { ClientApp, startClientApp } from './support/client-app';

// Short waits keep the suite quick; no assertion depends on how long anything took.
const FAST_RETRIES = { retryDelayMs: 1, maxRetryDelayMs: 20 };

describe('MmmqClient emit() and the broker acknowledgement', () => {
  let fake: FakeBroker | undefined;
  let app: ClientApp | undefined;

  afterEach(async () => {
    fake?.release();
    await app?.close();
    await fake?.close();
    fake = app = undefined;
  });

  it('completes only after the broker acknowledged the message', async () => {
    fake = await startFakeBroker('hold');
    app = await startClientApp({ broker: fake.url });
    const seen: unknown[] = [];
    let completed = false;
    app.client.emit('order.created', { orderId: 1 }).subscribe({
      next: (value) => seen.push(value),
      complete: () => (completed = true),
    });
    await waitFor(() => fake!.held === 1, { message: 'the publish to reach the fake broker' });
    expect({ seen, completed }).toEqual({ seen: [], completed: false });
    fake.release();
    await waitFor(() => completed, { message: 'emit() to complete after the ACK' });
    expect(seen).toEqual([{ id: fake.requests[0].id, topic: 'order.created', offset: 0, deliveryMode: 'persistent' }]);
  });

  it('errors with a ProduceError after maxRetryCount retries, every attempt with the same id', async () => {
    fake = await startFakeBroker('unavailable');
    app = await startClientApp({ broker: fake.url, maxRetryCount: 2, ...FAST_RETRIES });
    const error = await lastValueFrom(app.client.emit('order.created', { orderId: 2 })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProduceError);
    expect(error).toMatchObject({ attempts: 3, topic: 'order.created' });
    expect(fake.requests.map((request) => request.id)).toEqual(Array(3).fill((error as ProduceError).ids[0]));
  });

  it('errors with a ProduceError naming the unreachable broker when nothing listens', async () => {
    app = await startClientApp({ broker: `http://127.0.0.1:${await freePort()}`, maxRetryCount: 1, ...FAST_RETRIES });
    const error = await lastValueFrom(app.client.emit('order.created', { orderId: 3 })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProduceError);
    expect(error).toMatchObject({ attempts: 2 });
    expect((error as ProduceError).cause).toBeInstanceOf(BrokerUnreachableError);
  });

  it('publishes send() as one request, and errors at once when the broker has no reply relay to collect from', async () => {
    fake = await startFakeBroker('ack');
    app = await startClientApp({ broker: fake.url });
    const error = await lastValueFrom(app.client.send('order.quote', { orderId: 4 })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestReplyUnavailableError);
    expect((error as Error).message).toMatch(/published, but its reply cannot be collected from the broker: the broker answered 404/);
    expect(fake.requests.map((request) => request.topic)).toEqual(['order.quote']);
  });
});
