import { Controller, INestMicroservice } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { BrokerApp, FAST_BACKOFF, startBroker, waitFor } from '@mmmq/test-support';
import { MmmqContext, MmmqServer } from '../src';
import { startMicroservice } from './support/microservice-app';

const tasks: Array<{ name: string; deliveryCount: number }> = [];
const settled: string[] = [];

@Controller()
class PullController {
  @EventPattern('task.*')
  run(@Payload() task: { name: string }, @Ctx() context: MmmqContext): void {
    tasks.push({ name: task.name, deliveryCount: context.getDeliveryCount() });
    if (task.name === 'broken') throw new Error('the task is broken');
  }

  @EventPattern('shipment.*')
  async ship(@Payload() shipment: { id: number }, @Ctx() context: MmmqContext): Promise<void> {
    await context.transaction((tx) => tx.produce('label.printed', { shipment: shipment.id }));
  }

  @EventPattern('review.*', { ackMode: 'manual' })
  async review(@Payload() review: { verdict: 'ack' | 'terminate' }, @Ctx() context: MmmqContext): Promise<void> {
    if (review.verdict === 'ack') await context.ack();
    else await context.terminate('rejected by the reviewer');
    settled.push(review.verdict);
  }
}

const TASKS = 'pulls.task.any';
const REVIEWS = 'pulls.review.any';
const SHIPMENTS = 'pulls.shipment.any';

describe('MmmqServer with pull delivery', () => {
  let broker: BrokerApp;
  let microservice: INestMicroservice;
  let server: MmmqServer;

  beforeAll(async () => {
    broker = await startBroker({ delivery: { ...FAST_BACKOFF, maxNackRetries: 2 } });
    ({ app: microservice, server } = await startMicroservice([PullController], { app: 'pulls', broker: broker.url, delivery: 'pull' }));
  });
  afterAll(async () => {
    await microservice?.close();
    await broker?.close();
  });

  it('fetches the messages, with no push server', async () => {
    expect(server.unwrap()).toBeUndefined();
    await broker.publishAll('task.run', [{ name: 't-1' }, { name: 't-2' }]);
    await waitFor(() => tasks.filter(({ name }) => name.startsWith('t-')).length === 2, { message: 'both tasks handled' });
    await broker.caughtUp(TASKS, 'task.run');
    expect(tasks.filter(({ name }) => name.startsWith('t-'))).toEqual([
      { name: 't-1', deliveryCount: 1 },
      { name: 't-2', deliveryCount: 1 },
    ]);
    const dispatcher = await broker.request('GET', `/mmmq/dispatchers/${TASKS}`);
    expect(dispatcher.body.host ?? dispatcher.body.hosts).toBeUndefined();
  });

  it('retries a handler that throws, then dead-letters the message', async () => {
    await broker.publish('task.run', { name: 'broken' });
    await waitFor(async () => (await broker.deadLetters(TASKS)).length === 1, { message: 'the broken task dead-lettered' });
    expect(tasks.filter(({ name }) => name === 'broken').map(({ deliveryCount }) => deliveryCount)).toEqual([1, 2, 3]);
    const [letter] = await broker.deadLetters(TASKS);
    // A pull NACK carries no error text (packages/consumer/src/pull/pull-client.ts), so last-error is the broker's
    // 'NACK without a message' here, where a push shows Nest's 'Internal server error'.
    expect(letter.headers).toMatchObject({ 'mmmq-dlq-reason': 'NACK', 'mmmq-dlq-attempts': 3 });
  });

  it('settles with ctx.ack() and ctx.terminate() in ackMode manual', async () => {
    await broker.publishAll('review.done', [{ verdict: 'ack' }, { verdict: 'terminate' }]);
    await waitFor(() => settled.length === 2, { message: 'both reviews settled' });
    await broker.caughtUp(REVIEWS, 'review.done');
    const letters = await broker.deadLetters(REVIEWS);
    expect(letters).toHaveLength(1);
    expect(letters[0].content).toEqual({ verdict: 'terminate' });
    expect(letters[0].headers['mmmq-dlq-last-error'] ?? letters[0].headers['mmmq-dlq-reason']).toMatch(
      /rejected by the reviewer|TERMINATE/,
    );
    expect((await broker.subscription(REVIEWS, 'review.done')).stats).toMatchObject({ delivered: 1, deadLettered: 1, redelivered: 0 });
  });

  it('ctx.transaction() publishes the outputs and settles the message in one commit', async () => {
    await broker.publishAll('shipment.ready', [{ id: 1 }, { id: 2 }]);
    await broker.caughtUp(SHIPMENTS, 'shipment.ready');
    expect((await broker.stored('label.printed')).map(({ content }) => JSON.parse(content))).toEqual([{ shipment: 1 }, { shipment: 2 }]);
    expect((await broker.subscription(SHIPMENTS, 'shipment.ready')).stats).toMatchObject({ transacted: 2, redelivered: 0 });
  });
});
