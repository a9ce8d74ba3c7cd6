import { waitFor } from '@mmmq/test-support';
import amqp, { type ChannelModel } from 'amqplib';
import { randomBytes } from 'node:crypto';
import { content } from '../src/payload';
import { MmmqOnRabbitMqSystem, RAW_RABBITMQ_PREFETCH } from '../src/systems/mmmq-on-rabbitmq';
import type { TopicPlan } from '../src/systems/system';

const URL = 'amqp://guest:guest@127.0.0.1:5672';

function plan(groups: number): TopicPlan {
  const prefix = `bench-test-${randomBytes(4).toString('hex')}`;
  return { prefix, topics: [`${prefix}.t0`], groups: Array.from({ length: groups }, (_, i) => `g${i}`) };
}

/** Whether RabbitMQ knows the exchange or queue (a failed check closes its channel, so each gets its own). */
async function exists(model: ChannelModel, kind: 'exchange' | 'queue', name: string): Promise<boolean> {
  const channel = await model.createChannel();
  channel.on('error', () => undefined);
  try {
    await (kind === 'exchange' ? channel.checkExchange(name) : channel.checkQueue(name));
    await channel.close();
    return true;
  } catch {
    return false;
  }
}

describe('MMMQ API on RabbitMQ quorum, the bench system (shared RabbitMQ)', () => {
  let model: ChannelModel;
  const system = new MmmqOnRabbitMqSystem(RAW_RABBITMQ_PREFETCH);

  beforeAll(async () => {
    model = await amqp.connect(URL);
    await system.start();
  });

  afterAll(async () => {
    await system.stop();
    await model.close();
  });

  it('stores what it publishes with no consumer running, and deletes its exchange and queues after the round', async () => {
    const round = plan(1);
    await system.declare(round);
    for (let i = 0; i < 20; i++) await system.publish(round.topics[0], content(i, performance.now(), 64));
    const queue = `${round.prefix}.bench.g0`;
    const channel = await model.createChannel();
    expect((await channel.checkQueue(queue)).messageCount).toBe(20);
    await channel.close();

    await system.drop(round);
    expect(await exists(model, 'queue', queue)).toBe(false);
    expect(await exists(model, 'exchange', round.prefix)).toBe(false);
  });

  it('delivers every message to each of several consumer ids through @MMMQListener listeners', async () => {
    const round = plan(2);
    await system.declare(round);
    const received = [new Set<number>(), new Set<number>()];
    const handle = await system.consume(round, (group, c) => received[group].add(c.seq));
    try {
      for (let i = 0; i < 50; i++) await system.publish(round.topics[0], content(i, performance.now(), 64));
      await waitFor(() => received.every((seqs) => seqs.size === 50), {
        message: () => `50 messages in each group, got ${received.map((seqs) => seqs.size).join(' and ')}`,
      });
    } finally {
      await handle.close();
      await system.drop(round);
    }
    expect(await exists(model, 'queue', `${round.prefix}.bench.g1`)).toBe(false);
  });

  it('shares one queue between competing consumer applications', async () => {
    const round = plan(1);
    await system.declare(round);
    const perMember = [0, 0, 0];
    const seen = new Set<number>();
    const handle = await system.consumeCompeting(round, 3, (member, c) => {
      perMember[member]++;
      seen.add(c.seq);
    });
    try {
      for (let i = 0; i < 60; i++) await system.publish(round.topics[0], content(i, performance.now(), 64));
      await waitFor(() => seen.size === 60, { message: () => `60 messages, got ${seen.size}` });
    } finally {
      await handle.close();
      await system.drop(round);
    }
    // Each message went to one member (at least once: a redelivery would only add to the sum).
    expect(perMember.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(60);
    expect(await exists(model, 'queue', `${round.prefix}.bench.g0`)).toBe(false);
  });
});
