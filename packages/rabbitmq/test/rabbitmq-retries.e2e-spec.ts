import { Acknowledgement, DeadLetterHeaders, TransportDelivery } from '@mmmq/core';
import { waitFor } from '@mmmq/test-support';
import type { GetMessage } from 'amqplib';
import { listenerNames } from '../src';
import { drainQueue } from './support/dead-letters';
import { ACK, listener, message, RecordingHandler, TestResources, testTransport } from './support/rabbitmq-test-transport';

const NACK = { acknowledgement: Acknowledgement.NACK, message: 'handler failed' } as const;

describe('RabbitMqTransport: NACK retries and dead letters', () => {
  let resources: TestResources;

  beforeEach(() => {
    resources = new TestResources(testTransport({ retry: { maxDeliveries: 4, delaysMs: [100, 200, 300] } }));
  });

  afterEach(async () => {
    await resources.dispose();
  });

  async function deadLetters(consumerId: string, count: number): Promise<GetMessage[]> {
    const queue = listenerNames(resources.transport.options, consumerId).deadLetterQueue;
    const letters: GetMessage[] = [];
    await waitFor(async () => (letters.push(...(await drainQueue(queue))), letters.length >= count), {
      message: `${count} dead letter(s) in ${queue}`,
    });
    return letters;
  }

  it('redelivers a NACKed message after each retry delay, counting deliveries, then dead-letters it with MMMQ headers', async () => {
    const arrivals: number[] = [];
    const handler = new RecordingHandler(() => (arrivals.push(Date.now()), NACK));
    await resources.subscriber().subscribe(listener('failing', 'order.*'), handler.handle);
    const sent = message('order.created', { n: 1 }, { headers: { tenant: 'acme' } });
    await resources.publisher().publish(sent);

    const [letter] = await deadLetters('failing', 1);
    expect(
      handler.received.map((delivery) => [delivery.id, delivery.topic, delivery.deliveryCount, delivery.redelivered, delivery.lastAttempt]),
    ).toEqual([
      [sent.id, 'order.created', 1, false, false],
      [sent.id, 'order.created', 2, true, false],
      [sent.id, 'order.created', 3, true, false],
      [sent.id, 'order.created', 4, true, true],
    ]);
    expect(handler.received.map((delivery) => delivery.headers)).toEqual(Array(4).fill({ tenant: 'acme' }));
    // Each redelivery waited at least its delay (100, 200, 300 ms).
    expect(arrivals.slice(1).map((at, index) => at - arrivals[index] >= [100, 200, 300][index])).toEqual([true, true, true]);
    expect(JSON.parse(letter.content.toString())).toEqual({ n: 1 });
    expect(letter.properties.messageId).toBe(sent.id);
    expect(letter.properties.headers).toMatchObject({
      tenant: 'acme',
      [DeadLetterHeaders.ORIGINAL_TOPIC]: 'order.created',
      [DeadLetterHeaders.ORIGINAL_ID]: sent.id,
      [DeadLetterHeaders.CONSUMER_ID]: 'failing',
      [DeadLetterHeaders.ATTEMPTS]: 4,
      [DeadLetterHeaders.REASON]: 'NACK',
      [DeadLetterHeaders.LAST_ERROR]: 'handler failed',
      [DeadLetterHeaders.FAILED_AT]: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('dead-letters a NACK with retry: false at once, as REJECTED', async () => {
    const handler = new RecordingHandler(() => ({ acknowledgement: Acknowledgement.NACK, retry: false, message: 'poison' }));
    await resources.subscriber().subscribe(listener('strict', 'poison'), handler.handle);
    const sent = message('poison', 'x');
    await resources.publisher().publish(sent);

    const [letter] = await deadLetters('strict', 1);
    expect(handler.received).toHaveLength(1);
    expect(letter.properties.headers).toMatchObject({
      [DeadLetterHeaders.REASON]: 'REJECTED',
      [DeadLetterHeaders.LAST_ERROR]: 'poison',
      [DeadLetterHeaders.ATTEMPTS]: 1,
      [DeadLetterHeaders.ORIGINAL_ID]: sent.id,
    });
  });

  it("honours a NACK's delayMs", async () => {
    const arrivals: number[] = [];
    let first = true;
    const handler = new RecordingHandler(() => {
      arrivals.push(Date.now());
      if (!first) return ACK;
      first = false;
      return { acknowledgement: Acknowledgement.NACK, delayMs: 700 };
    });
    await resources.subscriber().subscribe(listener('delayed', 'later'), handler.handle);
    await resources.publisher().publish(message('later', 1));
    await waitFor(() => arrivals.length === 2, { message: 'the redelivery' });
    expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(700);
    expect(handler.received[1].deliveryCount).toBe(2);
  });

  it('redelivers at once with a retry delay of 0, straight back into the queue', async () => {
    const handler = new RecordingHandler((delivery: TransportDelivery) => (delivery.deliveryCount < 2 ? { ...NACK, delayMs: 0 } : ACK));
    await resources.subscriber().subscribe(listener('immediate', 'now'), handler.handle);
    await resources.publisher().publish(message('now', 1));
    await waitFor(() => handler.received.length === 2, { message: 'the redelivery' });
    expect(handler.received.map((delivery) => delivery.deliveryCount)).toEqual([1, 2]);
  });

  it('dead-letters content that is not JSON without calling the handler', async () => {
    const handler = new RecordingHandler();
    await resources.subscriber().subscribe(listener('raw', 'raw'), handler.handle);
    await resources.publisher().publish({ ...message('raw', 0), content: 'not json' });
    const [letter] = await deadLetters('raw', 1);
    expect(letter.properties.headers).toMatchObject({ [DeadLetterHeaders.REASON]: 'REJECTED' });
    expect(handler.received).toHaveLength(0);
  });

  it('leaves a message that keeps coming back without a NACK to RabbitMQ, which dead-letters it past retry.deliveryLimit', async () => {
    resources = new TestResources(testTransport({ retry: { deliveryLimit: 2 } }));
    let refusals = 0;
    await resources.subscriber().subscribe(listener('crashing', 'boom'), () => {
      refusals++;
      return Promise.reject(new Error('consumer could not take it'));
    });
    const sent = message('boom', 1);
    await resources.publisher().publish(sent);
    const [letter] = await deadLetters('crashing', 1);
    expect(letter.properties.messageId).toBe(sent.id);
    expect(letter.properties.headers).toMatchObject({ 'x-first-death-reason': 'delivery_limit' });
    expect(refusals).toBe(3);
  });

  it('has RabbitMQ dead-letter a message that expired in the queue (reason expired)', async () => {
    const subscriber = resources.subscriber();
    await subscriber.subscribe(listener('late', 'short-lived'), new RecordingHandler().handle);
    await subscriber.stopReceiving();
    const sent = message('short-lived', 1, { ttlMs: 50 });
    await resources.publisher().publish(sent);
    const [letter] = await deadLetters('late', 1);
    expect(letter.properties.messageId).toBe(sent.id);
    expect(letter.properties.headers).toMatchObject({ 'x-first-death-reason': 'expired' });
  });
});
