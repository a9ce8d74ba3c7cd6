import { BrokerResponseError, BrokerUnreachableError, MessageRejectedError, ProduceError, ProducerClosedError } from '../src';
import { startProducer } from './support/producer-app';
import { failure, nack, refusingUrl, Reply, ScriptedBroker, startScriptedBroker } from './support/scripted-broker';

// Short waits keep the suite quick; no assertion depends on how long anything took.
const FAST_RETRIES = { retryDelayMs: 1, maxRetryDelayMs: 20 };

describe('Producer retries against a broker that fails', () => {
  let broker: ScriptedBroker | undefined;

  afterEach(async () => {
    await broker?.close();
    broker = undefined;
  });

  async function produceAgainst(replies: Reply[], options: { maxRetryCount?: number; timeoutMs?: number } = {}) {
    broker = await startScriptedBroker(replies);
    const app = await startProducer({ broker: broker.url, ...FAST_RETRIES, ...options });
    const outcome = await app.producer.produce('order.created', { orderId: 42 }).then(
      (published) => ({ published, error: undefined }),
      (error: unknown) => ({ published: undefined, error }),
    );
    await app.close();
    return { ...outcome, requests: broker.requests, warnings: app.logger.warnings };
  }

  it('sends once when the first attempt is acknowledged', async () => {
    const { published, requests } = await produceAgainst(['ack']);
    expect(requests).toHaveLength(1);
    expect(published).toEqual({ id: requests[0].ids[0], topic: 'order.created', offset: 0, deliveryMode: 'persistent' });
  });

  it('retries NACK, NACK, ACK in 3 requests, all carrying the same id, and logs each retry', async () => {
    const { published, requests, warnings } = await produceAgainst([nack(), nack(), 'ack']);
    expect(requests).toHaveLength(3);
    const [id] = requests[0].ids;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(requests.map((request) => request.ids)).toEqual([[id], [id], [id]]);
    expect(requests.map((request) => request.body.content)).toEqual(Array(3).fill({ orderId: 42 }));
    expect(published?.id).toBe(id);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^Publishing to order\.created failed \(attempt 1 of 4\): .*NACK: try again; retrying in \d+ ms with the same id/,
      ),
      expect.stringMatching(/\(attempt 2 of 4\)/),
    ]);
  });

  it('gives up after maxRetryCount + 1 requests with a ProduceError naming attempts and last cause', async () => {
    const { error, requests } = await produceAgainst([nack('disk busy')], { maxRetryCount: 2 });
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((request) => request.ids[0])).size).toBe(1);
    expect(error).toBeInstanceOf(ProduceError);
    expect(error).not.toBeInstanceOf(MessageRejectedError);
    const produceError = error as ProduceError;
    expect(produceError.message).toMatch(/^Publishing to order\.created failed after 3 attempts: .*disk busy/);
    expect(produceError.message).toContain(`same id "${requests[0].ids[0]}"`);
    expect(produceError).toMatchObject({ attempts: 3, topic: 'order.created', ids: [requests[0].ids[0]] });
    expect(produceError.cause).toBeInstanceOf(BrokerResponseError);
  });

  it('makes exactly one attempt with maxRetryCount 0', async () => {
    const { error, requests } = await produceAgainst([nack()], { maxRetryCount: 0 });
    expect(requests).toHaveLength(1);
    expect((error as ProduceError).message).toMatch(/failed after 1 attempt:/);
  });

  it.each([
    [400, 'Topic name must not be empty'],
    [404, 'Cannot POST /mmmq/messages'],
    [409, 'Topic Order.created differs only in case from order.created'],
    [413, 'Request body is larger than 1048576 bytes'],
    [415, 'Content-Encoding gzip is not supported'],
  ])('does not retry a %i: the broker would refuse the same request again', async (status, message) => {
    const { error, requests } = await produceAgainst([failure(status, message), 'ack']);
    expect(requests).toHaveLength(1);
    expect(error).toBeInstanceOf(MessageRejectedError);
    expect(error).toMatchObject({ status, attempts: 1 });
    expect((error as Error).message).toContain(`refused by the broker with ${status}: ${message}`);
  });

  it.each([429, 500, 502, 503])('retries a %i with the same id', async (status) => {
    const { published, requests } = await produceAgainst([failure(status, 'busy', { 'retry-after': '0' }), 'ack']);
    expect(requests).toHaveLength(2);
    expect(requests[1].ids).toEqual(requests[0].ids);
    expect(published?.id).toBe(requests[0].ids[0]);
  });

  it('honours Retry-After only up to maxRetryDelayMs, so a long one cannot stall the producer', async () => {
    const { published, requests } = await produceAgainst([failure(503, 'storage unavailable', { 'retry-after': '3600' }), 'ack']);
    expect(requests).toHaveLength(2);
    expect(published).toBeDefined();
  });

  it('retries an answer it cannot read, then reports what it got', async () => {
    const { error, requests } = await produceAgainst([{ status: 200, body: '<html>proxy error</html>' }], {
      maxRetryCount: 1,
    });
    expect(requests).toHaveLength(2);
    expect((error as Error).message).toMatch(/after 2 attempts: .*answered 200 but expected an ACK or NACK, got <html>proxy error/);
  });

  it('retries a broker that does not answer in time, then gives up', async () => {
    const { error, requests } = await produceAgainst(['hang'], { maxRetryCount: 1, timeoutMs: 1000 });
    expect(requests).toHaveLength(2);
    expect(error).toBeInstanceOf(ProduceError);
    expect((error as ProduceError).cause).toBeInstanceOf(BrokerUnreachableError);
    expect((error as Error).message).toMatch(/after 2 attempts: .*no answer within 1000 ms/);
  });

  it('retries a refused connection, then throws a ProduceError whose cause is the network error', async () => {
    const url = await refusingUrl();
    const app = await startProducer({ broker: url, ...FAST_RETRIES, maxRetryCount: 2 });
    const error = await app.producer.produce('order.created', 1).catch((caught: unknown) => caught);
    await app.close();
    expect(error).toBeInstanceOf(ProduceError);
    expect(error).toMatchObject({ attempts: 3 });
    expect((error as Error).message).toMatch(/^Publishing to order\.created failed after 3 attempts: .*ECONNREFUSED/);
    const cause = (error as ProduceError).cause;
    expect(cause).toBeInstanceOf(BrokerUnreachableError);
    expect((cause as Error).message).toContain(`Could not reach the broker at ${url}/mmmq/messages`);
    expect(app.logger.warnings).toHaveLength(2);
  });

  it('keeps every id of a batch across retries', async () => {
    broker = await startScriptedBroker([failure(503, 'busy', { 'retry-after': '0' }), nack(), 'ack']);
    const app = await startProducer({ broker: broker.url, ...FAST_RETRIES });
    const published = await app.producer.produceBatch([
      { topic: 'orders', content: 1, id: 'given-1' },
      { topic: 'orders', content: 2 },
      { topic: 'orders', content: 3 },
    ]);
    await app.close();
    const ids = broker.requests[0].ids;
    expect(ids[0]).toBe('given-1');
    expect(broker.requests.map((request) => request.path)).toEqual(Array(3).fill('/mmmq/messages/batch'));
    expect(broker.requests.map((request) => request.ids)).toEqual([ids, ids, ids]);
    expect(published.map((message) => message.id)).toEqual(ids);
  });

  it('stops retrying when closed and refuses to publish afterwards', async () => {
    broker = await startScriptedBroker([nack()]);
    const app = await startProducer({ broker: broker.url, retryDelayMs: 60_000, maxRetryDelayMs: 60_000 });
    const producing = app.producer.produce('order.created', 1).catch((caught: unknown) => caught);
    while (broker.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await Promise.all([app.producer.close(), app.producer.close()]);
    const error = await producing;
    expect(error).toBeInstanceOf(ProduceError);
    expect((error as Error).message).toMatch(/failed after 1 attempt: .*closed before the next attempt/);
    await expect(app.producer.produce('order.created', 2)).rejects.toBeInstanceOf(ProducerClosedError);
    await app.close();
    expect(broker.requests).toHaveLength(1);
  });
});
