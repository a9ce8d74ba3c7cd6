import { randomUUID } from 'node:crypto';
import { Controller, INestMicroservice } from '@nestjs/common';
import { Ctx, EventPattern, Payload, RpcException } from '@nestjs/microservices';
import { DeadLetterHeaders, MmmqTransport, TransportPublisher } from '@mmmq/core';
import { IN_MEMORY_MAX_NACK_RETRIES, InMemoryTransport } from '@mmmq/core/testing';
import { listenerNames, RabbitMqTransport } from '@mmmq/rabbitmq';
import { waitFor } from '@mmmq/test-support';
import { connect } from 'amqplib';
import { InvalidServerOptionsError, MmmqContext, MmmqNonRetriableException, MmmqServer } from '../src';
import { startMicroservice } from './support/microservice-app';

/** The shared RabbitMQ of the test machine (guest/guest). */
const RABBITMQ_URL = 'amqp://guest:guest@127.0.0.1:5672';
const RABBITMQ_MAX_DELIVERIES = 3;

/** What the handler saw: each message's id and delivery count, in arrival order. */
const seen: Array<{ orderId: string; id: string; deliveryCount: number }> = [];

@Controller()
class OrdersController {
  @EventPattern('order.*', { consumerId: 'shop.orders' })
  placed(@Payload() order: { orderId: string }, @Ctx() context: MmmqContext): void {
    seen.push({ orderId: order.orderId, id: context.getId(), deliveryCount: context.getDeliveryCount() });
    if (order.orderId === 'flaky') throw new RpcException('payment gateway timed out');
    if (order.orderId === 'unknown-sku') throw new MmmqNonRetriableException('sku 42 does not exist');
  }
}

/** A dead letter, whichever transport holds it. */
interface DeadLetter {
  id: string;
  reason: string;
  attempts: number;
  lastError: string;
}

/** One transport under test: how to build it, how many deliveries a failing message gets, where its dead letters are. */
interface TransportCase {
  name: string;
  create(): MmmqTransport;
  maxDeliveries: number;
  deadLetters(transport: MmmqTransport, consumerId: string): Promise<DeadLetter[]>;
  dispose(transport: MmmqTransport): Promise<void>;
}

const rabbitmq: TransportCase = {
  name: 'RabbitMQ',
  create: () => {
    // Its own exchange and queues: tests sharing the broker never see each other's messages.
    const suffix = randomUUID().slice(0, 8);
    return new RabbitMqTransport({
      url: RABBITMQ_URL,
      exchange: `mmmq-test-${suffix}`,
      queuePrefix: `mmmq-test-${suffix}.`,
      retry: { maxDeliveries: RABBITMQ_MAX_DELIVERIES, delaysMs: [50, 100] },
    });
  },
  maxDeliveries: RABBITMQ_MAX_DELIVERIES,
  deadLetters: async (transport, consumerId) => {
    const queue = listenerNames((transport as RabbitMqTransport).options, consumerId).deadLetterQueue;
    const connection = await connect(RABBITMQ_URL);
    try {
      const channel = await connection.createChannel();
      const letters: DeadLetter[] = [];
      // Read without taking: the letters stay for the next look.
      for (let next = await channel.get(queue); next !== false; next = await channel.get(queue)) {
        const headers = next.properties.headers ?? {};
        letters.push({
          id: String(headers[DeadLetterHeaders.ORIGINAL_ID]),
          reason: String(headers[DeadLetterHeaders.REASON]),
          attempts: Number(headers[DeadLetterHeaders.ATTEMPTS]),
          lastError: String(headers[DeadLetterHeaders.LAST_ERROR]),
        });
      }
      return letters;
    } finally {
      await connection.close();
    }
  },
  dispose: (transport) => (transport as RabbitMqTransport).deleteDeclared(),
};

const inMemory: TransportCase = {
  name: 'the in-memory transport',
  create: () => new InMemoryTransport(),
  maxDeliveries: IN_MEMORY_MAX_NACK_RETRIES + 1,
  deadLetters: async (transport, consumerId) =>
    (transport as InMemoryTransport).broker
      .deadLetters(consumerId)
      .map(({ id, reason, attempts, lastError }) => ({ id, reason, attempts, lastError })),
  dispose: async () => undefined,
};

describe.each([rabbitmq, inMemory])('@EventPattern handlers on MmmqServer over $name (transport option)', (transportCase) => {
  let transport: MmmqTransport;
  let publisher: TransportPublisher;
  let microservice: INestMicroservice | undefined;
  let server: MmmqServer;

  beforeAll(async () => {
    transport = transportCase.create();
    ({ app: microservice, server } = await startMicroservice([OrdersController], { app: 'shop', transport }));
    publisher = transport.createPublisher();
  });
  afterAll(async () => {
    await microservice?.close();
    await publisher?.close();
    await transportCase.dispose(transport);
  });
  beforeEach(() => {
    seen.length = 0;
  });

  async function publish(orderId: string): Promise<string> {
    const id = randomUUID();
    await publisher.publish({
      id,
      topic: 'order.placed',
      headers: undefined,
      content: JSON.stringify({ orderId }),
      deliveryMode: undefined,
    });
    return id;
  }

  async function deadLetter(id: string): Promise<DeadLetter> {
    let letter: DeadLetter | undefined;
    await waitFor(
      async () => (letter = (await transportCase.deadLetters(transport, 'shop.orders')).find((entry) => entry.id === id)) !== undefined,
      { message: `message ${id} to be dead-lettered` },
    );
    return letter!;
  }

  it('receives on the transport, with no push server of its own', () => {
    expect(server.unwrap()).toBeUndefined();
  });

  it('ACKs a message whose handler completes: handled once, not dead-lettered', async () => {
    const id = await publish('o-1');
    const other = await publish('o-2');

    await waitFor(() => seen.some((entry) => entry.id === other), { message: 'both orders handled' });
    expect(seen.filter((entry) => entry.id === id)).toEqual([{ orderId: 'o-1', id, deliveryCount: 1 }]);
    expect((await transportCase.deadLetters(transport, 'shop.orders')).map((letter) => letter.id)).not.toContain(id);
  });

  it('NACKs a failing handler: the transport redelivers it, then dead-letters it once retries run out', async () => {
    const id = await publish('flaky');

    const letter = await deadLetter(id);
    expect(seen.filter((entry) => entry.id === id).map((entry) => entry.deliveryCount)).toEqual(
      Array.from({ length: transportCase.maxDeliveries }, (_, n) => n + 1),
    );
    expect(letter).toMatchObject({ reason: 'NACK', attempts: transportCase.maxDeliveries });
    expect(letter.lastError).toContain('payment gateway timed out');
  });

  it('dead-letters a MmmqNonRetriableException at once, without a retry', async () => {
    const id = await publish('unknown-sku');

    const letter = await deadLetter(id);
    expect(seen.filter((entry) => entry.id === id)).toHaveLength(1);
    expect(letter).toMatchObject({ reason: 'REJECTED', attempts: 1 });
    expect(letter.lastError).toContain('sku 42 does not exist');
  });
});

describe('MmmqServer options beside transport', () => {
  it.each([
    [{ port: 3000 }, 'port is an option of the MMMQ broker, but transport is set (in-memory); remove it'],
    [{ host: '127.0.0.1', port: 3000 }, 'port, host are options of the MMMQ broker, but transport is set (in-memory); remove them'],
  ])('refuses the push server option %j, naming it', (given, message) => {
    expect(() => new MmmqServer({ transport: new InMemoryTransport(), ...given })).toThrow(new InvalidServerOptionsError(message));
  });

  it('refuses the MMMQ broker options, naming them', () => {
    expect(() => new MmmqServer({ transport: new InMemoryTransport(), broker: 'http://127.0.0.1:1', delivery: 'pull' })).toThrow(
      'broker, delivery are options of the MMMQ broker, but transport is set (in-memory); remove them',
    );
  });
});
