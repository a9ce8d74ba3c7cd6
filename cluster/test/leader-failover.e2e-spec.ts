import { RabbitMqCluster, RabbitMqNode, waitFor } from '@mmmq/test-support';
import { connect } from 'amqplib';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ConfirmedPublisher } from '../support/confirmed-publisher';
import { RecordingConsumer } from '../support/recording-consumer';

/** Messages per run; `MMMQ_CLUSTER_MESSAGES` for a bigger one. */
const MESSAGES = Number(process.env.MMMQ_CLUSTER_MESSAGES ?? 20_000);
/** The leader is killed once this share of the messages is confirmed: mid-load, with traffic on both sides. */
const KILL_AT_SHARE = 0.3;

/** Each URL in turn, starting at `node`'s: a client's own node first, then the others. */
function urlsFrom(cluster: RabbitMqCluster, node: RabbitMqNode): string[] {
  const at = cluster.nodes.indexOf(node);
  return [...cluster.nodes.slice(at), ...cluster.nodes.slice(0, at)].map((each) => each.amqpUrl);
}

describe('A 3-node RabbitMQ cluster whose quorum queue leader is killed under load', () => {
  let cluster: RabbitMqCluster;
  const run = randomBytes(3).toString('hex');
  const exchange = `mmmq-cluster-${run}`;
  const queue = `mmmq-cluster-${run}.billing`;
  let clusterStartMs = 0;

  beforeAll(async () => {
    const started = performance.now();
    cluster = await RabbitMqCluster.start(3);
    clusterStartMs = performance.now() - started;
    const connection = await connect(cluster.amqpUrls[0]);
    try {
      const channel = await connection.createChannel();
      await channel.assertExchange(exchange, 'topic', { durable: true });
      // A member on each of the three nodes.
      await channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum', 'x-quorum-initial-group-size': 3 } });
      await channel.bindQueue(queue, exchange, 'order.#');
    } finally {
      await connection.close();
    }
  });

  afterAll(() => cluster?.stop());

  it('loses no confirmed message, elects a new leader and resumes delivery through the surviving nodes', async () => {
    let leader: RabbitMqNode | undefined;
    await waitFor(async () => (leader = await cluster.leaderOf(queue)) !== undefined, { message: `a leader for ${queue}` });
    const killed = leader!;
    // The publisher on a follower, which survives; the consumer on the leader, so it loses its node and reconnects.
    const publisherNode = cluster.nodes.find((node) => node !== killed)!;
    const publisher = new ConfirmedPublisher({
      urls: urlsFrom(cluster, publisherNode),
      exchange,
      routingKey: 'order.created',
      count: MESSAGES,
    });
    const consumer = new RecordingConsumer({ urls: urlsFrom(cluster, killed), queue });
    const loadStarted = performance.now();
    try {
      await waitFor(() => publisher.confirmed.size >= MESSAGES * KILL_AT_SHARE && consumer.deliveries > 0, {
        deadlineMs: 120_000,
        message: () =>
          `${MESSAGES * KILL_AT_SHARE} confirms and a delivery before the kill (confirmed ${publisher.confirmed.size}, consumed ${consumer.deliveries})`,
      });
      const confirmedBeforeKill = publisher.confirmed.size;
      const consumedBeforeKill = consumer.deliveries;
      const consumerConnectionAtKill = consumer.connections;
      const killedAt = performance.now();
      await killed.kill();

      await waitFor(() => publisher.confirmed.size === MESSAGES, {
        deadlineMs: 120_000,
        message: () => `every message confirmed (${publisher.confirmed.size} of ${MESSAGES})`,
      });
      const publishedAt = performance.now();
      await waitFor(() => [...publisher.confirmed.keys()].every((id) => consumer.seen.has(id)), {
        deadlineMs: 120_000,
        message: () =>
          `every confirmed message consumed (${[...publisher.confirmed.keys()].filter((id) => !consumer.seen.has(id)).length} missing)`,
      });
      const consumedAt = performance.now();

      const lost = [...publisher.confirmed.keys()].filter((id) => !consumer.seen.has(id));
      let newLeader: RabbitMqNode | undefined;
      await waitFor(async () => (newLeader = await cluster.leaderOf(queue)) !== undefined, { message: `a new leader for ${queue}` });
      const resumedConsumeAt = consumer.firstDeliveryOn.get(consumerConnectionAtKill + 1);
      const resumedConfirmAt = publisher.firstConfirmOfPublishAfter(killedAt);
      const figures = {
        messages: MESSAGES,
        confirmed: publisher.confirmed.size,
        consumedUnique: consumer.seen.size,
        deliveries: consumer.deliveries,
        duplicates: consumer.duplicates,
        lost: lost.length,
        resentAfterNackOrLoss: publisher.resent,
        confirmedBeforeKill,
        consumedBeforeKill,
        killed: killed.name,
        newLeader: newLeader?.name,
        consumerReconnects: consumer.connections - 1,
        publisherReconnects: publisher.connections - 1,
        publishGapMs: resumedConfirmAt === undefined ? undefined : Math.round(resumedConfirmAt - killedAt),
        consumeGapMs: resumedConsumeAt === undefined ? undefined : Math.round(resumedConsumeAt - killedAt),
        publishPerSecond: Math.round(MESSAGES / ((publishedAt - loadStarted) / 1000)),
        consumePerSecond: Math.round(consumer.seen.size / ((consumedAt - loadStarted) / 1000)),
        clusterStartMs: Math.round(clusterStartMs),
        loadMs: Math.round(consumedAt - loadStarted),
      };
      console.log(`cluster failover: ${JSON.stringify(figures)}`);

      expect(publisher.confirmed.size).toBe(MESSAGES);
      expect(lost).toEqual([]);
      // Nothing arrives that was not published.
      expect([...consumer.seen.keys()].filter((id) => !/^m-\d+$/.test(id))).toEqual([]);
      // The consumer lost its node, connected to a surviving one and received there; publishing resumed.
      expect(killed.running).toBe(false);
      expect(resumedConsumeAt).toBeGreaterThan(killedAt);
      expect(consumer.deliveries).toBeGreaterThan(consumedBeforeKill);
      expect(resumedConfirmAt).toBeGreaterThan(killedAt);
      expect(newLeader).toBeDefined();
      expect(newLeader).not.toBe(killed);
      expect(newLeader!.running).toBe(true);
    } finally {
      await consumer.close();
      await publisher.close();
    }
  });
});
