import { Acknowledgement, ConsumerAcknowledgement, TransportDelivery, TransportMessage, TransportPublisher } from '@mmmq/core';
import { waitFor } from '@mmmq/test-support';
import { connect } from 'amqplib';
import { listenerNames } from '../src';
import {
  listener,
  message,
  RABBITMQ_URL,
  RecordingHandler,
  TestResources,
  proxiedResources,
  testTransport,
} from './support/rabbitmq-test-transport';
import { TcpProxy } from './support/tcp-proxy';

/** As the producer does: the same message (same id) again until RabbitMQ confirms it. */
async function publishUntilConfirmed(publisher: TransportPublisher, sent: TransportMessage, failures: Error[]): Promise<void> {
  for (;;) {
    try {
      await publisher.publish(sent);
      return;
    } catch (error) {
      failures.push(error as Error);
    }
  }
}

describe('RabbitMqTransport: dropped connections', () => {
  let proxy: TcpProxy;
  let resources: TestResources;

  beforeEach(async () => {
    ({ proxy, resources } = await proxiedResources({ reconnect: { initialMs: 20, maxMs: 200 }, confirmTimeoutMs: 5000 }));
  });

  afterEach(async () => {
    await resources.dispose();
    await proxy.stop();
  });

  it('consumes every confirmed message at least once when all connections are cut twice mid-stream', async () => {
    const handler = new RecordingHandler();
    await resources.subscriber().subscribe(listener('survivor', 'stream.*', { concurrency: 8 }), handler.handle);
    const publisher = resources.publisher();
    const sent = Array.from({ length: 400 }, (_, index) => message(`stream.${index % 3}`, index));
    const failures: Error[] = [];
    const confirmed: string[] = [];
    const connectionsBefore = proxy.accepted;
    let next = 0;
    // 10 publishers at once, so publishes are in flight whenever the connections are cut.
    const lanes = Array.from({ length: 10 }, async () => {
      while (next < sent.length) {
        const current = sent[next++];
        await publishUntilConfirmed(publisher, current, failures);
        confirmed.push(current.id);
        if (confirmed.length === 100 || confirmed.length === 250) proxy.cut();
      }
    });
    await Promise.all(lanes);

    const received = new Set<string>();
    await waitFor(() => (handler.received.forEach((delivery) => received.add(delivery.id)), confirmed.every((id) => received.has(id))), {
      message: () => `every confirmed message to be consumed; missing ${confirmed.filter((id) => !received.has(id)).length}`,
    });
    expect(confirmed).toHaveLength(400);
    // Publishes in flight at a cut were rejected (not dropped silently), then sent again and confirmed.
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.every((error) => ['PublishNotConfirmedError', 'RabbitMqConnectionError'].includes(error.name))).toBe(true);
    // Publisher and subscriber each connected again after both cuts: 2 + 2 × 2 connections at least.
    expect(proxy.accepted - connectionsBefore).toBeGreaterThanOrEqual(4);
  });

  it('redelivers the message a handler held when the connection dropped, and resubscribes', async () => {
    let release: ((answer: ConsumerAcknowledgement) => void) | undefined;
    const handler = new RecordingHandler((delivery: TransportDelivery) =>
      delivery.deliveryCount === 1
        ? new Promise<ConsumerAcknowledgement>((resolve) => (release = resolve))
        : { acknowledgement: Acknowledgement.ACK },
    );
    await resources.subscriber().subscribe(listener('holder', 'held'), handler.handle);
    const held = message('held', 'x');
    await resources.publisher().publish(held);
    await waitFor(() => handler.received.length === 1, { message: 'the first delivery' });

    proxy.cut();
    await waitFor(() => handler.received.length === 2, { message: 'the redelivery after the reconnection' });
    // The late ACK of the first delivery goes to a dead channel and changes nothing.
    release?.({ acknowledgement: Acknowledgement.ACK });
    expect(handler.received[1]).toMatchObject({ id: held.id, deliveryCount: 2, redelivered: true });

    const after = message('held', 'after');
    await resources.publisher().publish(after);
    await waitFor(() => handler.received.some((delivery) => delivery.id === after.id), {
      message: 'a message published after the reconnection',
    });
  });

  it('keeps a publish failing with retryable errors while RabbitMQ cannot be reached, then confirms it', async () => {
    const publisher = resources.publisher();
    await publisher.publish(message('down', 0));
    proxy.refuse = true;
    proxy.cut();
    const failures: Error[] = [];
    let confirmed = false;
    const pending = publishUntilConfirmed(publisher, message('down', 1), failures).then(() => (confirmed = true));
    await waitFor(() => proxy.refused >= 3, { message: 'reconnection attempts while RabbitMQ is down' });
    expect(confirmed).toBe(false);

    proxy.refuse = false;
    await pending;
    expect(failures.every((error) => ['PublishNotConfirmedError', 'RabbitMqConnectionError'].includes(error.name))).toBe(true);
  });

  it('stops reconnecting once closed, and close() can be called again', async () => {
    const subscriber = resources.subscriber();
    await subscriber.subscribe(listener('closing', 'x'), new RecordingHandler().handle);
    await subscriber.close();
    await subscriber.close();
    const accepted = proxy.accepted;
    proxy.cut();
    const publisher = resources.publisher();
    await publisher.publish(message('x', 1));
    // Only the publisher connects now.
    expect(proxy.accepted - accepted).toBe(1);
  });

  it('declares its queue again and resubscribes when the queue is deleted under it', async () => {
    const handler = new RecordingHandler();
    await resources.subscriber().subscribe(listener('deleted', 'again'), handler.handle);
    const queue = listenerNames(resources.transport.options, 'deleted').queue;
    const model = await connect(RABBITMQ_URL);
    try {
      await (await model.createChannel()).deleteQueue(queue);
    } finally {
      await model.close();
    }
    const publisher = resources.publisher();
    // Until the queue is back, messages to the topic have nowhere to go: publish until one arrives.
    await waitFor(async () => (await publisher.publish(message('again', 1)), handler.received.length > 0), {
      message: 'a delivery from the declared-again queue',
      pollMs: 50,
    });
  });

  it('tries the next url when a node is down, and fails over to it when the node in use goes away', async () => {
    const other = new TcpProxy('127.0.0.1', 5672);
    const otherPort = await other.start();
    proxy.refuse = true;
    const transport = testTransport({
      url: [resources.transport.options.urls[0], `amqp://guest:guest@127.0.0.1:${otherPort}`],
      reconnect: { initialMs: 20, maxMs: 200 },
    });
    const subscriber = transport.createSubscriber();
    const publisher = transport.createPublisher();
    try {
      const handler = new RecordingHandler();
      await subscriber.subscribe(listener('failover', 'node.*'), handler.handle);
      const first = message('node.a', 1);
      await publisher.publish(first);
      await waitFor(() => handler.received.length === 1, { message: 'the message through the second node' });
      expect([proxy.accepted, other.accepted]).toEqual([0, 2]);

      // The second node goes away; the first is back: both reconnect there and carry on.
      proxy.refuse = false;
      other.refuse = true;
      other.cut();
      const second = message('node.b', 2);
      await publishUntilConfirmed(publisher, second, []);
      // The ACK of the first may have been cut off: then it comes again (at least once).
      await waitFor(() => handler.ids().includes(second.id), { message: 'the message through the first node' });
      expect(new Set(handler.ids())).toEqual(new Set([first.id, second.id]));
      expect(proxy.accepted).toBe(2);
    } finally {
      await Promise.all([subscriber.close(), publisher.close()]);
      await transport.deleteDeclared();
      await other.stop();
    }
  });
});
