import {
  Acknowledgement,
  ConsumerAcknowledgement,
  TransportDelivery,
  TransportMessage,
  TransportPublisher,
  TransportRejectedError,
  TransportSubscriber,
} from '@mmmq/core';
import { RabbitMqTransport } from '@mmmq/rabbitmq';
import { RabbitMqCluster, RabbitMqNode, waitFor } from '@mmmq/test-support';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';

/** Messages per run; `MMMQ_CLUSTER_MESSAGES` for a bigger one. */
const MESSAGES = Number(process.env.MMMQ_CLUSTER_MESSAGES ?? 20_000);
/** The leader is killed once this share of the messages is confirmed. */
const KILL_AT_SHARE = 0.3;
/** Publishes in flight at once, each retried with its id until confirmed, as the producer does. */
const PUBLISHERS = 100;
/** Between two attempts of one publish: the transport already waited for a connection or a confirm. */
const RETRY_PAUSE_MS = 50;
/** The listener's handlers at once (its prefetch): enough to keep up with the publishers. */
const LISTENER_CONCURRENCY = 100;
/** Quick reconnects: the test measures the failover, not the default backoff. */
const RECONNECT = { initialMs: 100, maxMs: 1_000 };

function urlsFrom(cluster: RabbitMqCluster, node: RabbitMqNode): string[] {
  const at = cluster.nodes.indexOf(node);
  return [...cluster.nodes.slice(at), ...cluster.nodes.slice(0, at)].map((each) => each.amqpUrl);
}

function message(id: string): TransportMessage {
  return { id, topic: 'order.created', headers: undefined, content: JSON.stringify({ id }), deliveryMode: undefined };
}

/**
 * The same failover as leader-failover.e2e-spec.ts, through what MMMQ users run: `RabbitMqTransport`'s publisher
 * (a producer's retries with the same id on top) and subscriber (a listener on a quorum queue, ACK after handling).
 */
describe("MMMQ's RabbitMQ transport on a 3-node cluster whose queue leader is killed under load", () => {
  let cluster: RabbitMqCluster;
  const run = randomBytes(3).toString('hex');
  const exchange = `mmmq-cluster-${run}`;
  const queuePrefix = `mmmq-cluster-${run}.`;
  const consumerId = 'billing';
  const queue = `${queuePrefix}${consumerId}`;

  let clusterStartMs = 0;

  beforeAll(async () => {
    const started = performance.now();
    cluster = await RabbitMqCluster.start(3);
    clusterStartMs = performance.now() - started;
  });

  afterAll(() => cluster?.stop());

  it('loses no confirmed publish and its listener resumes on a surviving node', async () => {
    const seen = new Map<string, number>();
    const deliveries: Array<{ id: string; at: number; redelivered: boolean }> = [];
    const handle = async (delivery: TransportDelivery): Promise<ConsumerAcknowledgement> => {
      deliveries.push({ id: delivery.id, at: performance.now(), redelivered: delivery.redelivered });
      seen.set(delivery.id, (seen.get(delivery.id) ?? 0) + 1);
      return { acknowledgement: Acknowledgement.ACK };
    };
    // The listener's queue is declared through the first node, which therefore leads it.
    const subscriberTransport = new RabbitMqTransport({
      url: urlsFrom(cluster, cluster.nodes[0]),
      exchange,
      queuePrefix,
      reconnect: RECONNECT,
    });
    const subscriber: TransportSubscriber = subscriberTransport.createSubscriber();
    let publisher: TransportPublisher | undefined;
    try {
      await subscriber.subscribe({ consumerId, pattern: 'order.**', concurrency: LISTENER_CONCURRENCY, ackMode: 'auto' }, handle);
      let leader: RabbitMqNode | undefined;
      await waitFor(async () => (leader = await cluster.leaderOf(queue)) !== undefined, { message: `a leader for ${queue}` });
      const killed = leader!;
      const members = JSON.parse(
        await killed.cli(['quorum_status', queue, '--formatter', 'json', '--quiet'], 'rabbitmq-queues'),
      ) as unknown[];
      expect(members).toHaveLength(3);
      const publisherNode = cluster.nodes.find((node) => node !== killed)!;
      publisher = new RabbitMqTransport({
        url: urlsFrom(cluster, publisherNode),
        exchange,
        queuePrefix,
        reconnect: RECONNECT,
      }).createPublisher();

      const confirmed = new Map<string, number>();
      const confirms: Array<{ startedAt: number; at: number }> = [];
      /** When each message was first sent: the delivery gap counts messages sent after the kill only. */
      const firstSent = new Map<string, number>();
      let failedAttempts = 0;
      let next = 0;
      const send = publisher;
      const worker = async () => {
        while (next < MESSAGES) {
          const id = `t-${next++}`;
          firstSent.set(id, performance.now());
          for (;;) {
            const startedAt = performance.now();
            try {
              await send.publish(message(id));
              const at = performance.now();
              confirmed.set(id, at);
              confirms.push({ startedAt, at });
              break;
            } catch (error) {
              if (error instanceof TransportRejectedError) throw error;
              failedAttempts++;
              await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
            }
          }
        }
      };
      const loadStarted = performance.now();
      const publishing = Promise.all(Array.from({ length: PUBLISHERS }, worker));
      publishing.catch(() => undefined);

      await waitFor(() => confirmed.size >= MESSAGES * KILL_AT_SHARE && deliveries.length > 0, {
        deadlineMs: 120_000,
        message: () =>
          `${MESSAGES * KILL_AT_SHARE} confirms and a delivery before the kill (confirmed ${confirmed.size}, delivered ${deliveries.length})`,
      });
      const confirmedBeforeKill = confirmed.size;
      const deliveredBeforeKill = deliveries.length;
      const killedAt = performance.now();
      await killed.kill();

      await waitFor(() => confirmed.size === MESSAGES, {
        deadlineMs: 120_000,
        message: () => `every publish confirmed (${confirmed.size} of ${MESSAGES}, ${failedAttempts} failed attempts)`,
      });
      await publishing;
      const publishedAt = performance.now();
      await waitFor(() => [...confirmed.keys()].every((id) => seen.has(id)), {
        deadlineMs: 120_000,
        message: () => `every confirmed message delivered (${[...confirmed.keys()].filter((id) => !seen.has(id)).length} missing)`,
      });
      const deliveredAt = performance.now();
      const lost = [...confirmed.keys()].filter((id) => !seen.has(id));
      let newLeader: RabbitMqNode | undefined;
      await waitFor(async () => (newLeader = await cluster.leaderOf(queue)) !== undefined, { message: `a new leader for ${queue}` });
      // Resumed: a publish attempt started after the kill was confirmed, and a message first sent after it delivered.
      const resumedConfirmAt = confirms.find((confirm) => confirm.startedAt > killedAt)?.at;
      // The listener's node died: what it held unacked comes again (redelivered) once it consumes through another.
      const firstRedeliveryAt = deliveries.find((delivery) => delivery.at > killedAt && delivery.redelivered)?.at;
      // End to end, behind whatever backlog the queue had at the kill.
      const firstSentAfterKillDeliveredAt = deliveries.find((delivery) => (firstSent.get(delivery.id) ?? 0) > killedAt)?.at;
      const figures = {
        transport: 'RabbitMqTransport',
        messages: MESSAGES,
        confirmed: confirmed.size,
        deliveredUnique: seen.size,
        deliveries: deliveries.length,
        duplicates: deliveries.length - seen.size,
        lost: lost.length,
        failedPublishAttempts: failedAttempts,
        confirmedBeforeKill,
        deliveredBeforeKill,
        killed: killed.name,
        newLeader: newLeader?.name,
        publishGapMs: resumedConfirmAt === undefined ? undefined : Math.round(resumedConfirmAt - killedAt),
        redeliveryGapMs: firstRedeliveryAt === undefined ? undefined : Math.round(firstRedeliveryAt - killedAt),
        sentAfterKillDeliveredMs:
          firstSentAfterKillDeliveredAt === undefined ? undefined : Math.round(firstSentAfterKillDeliveredAt - killedAt),
        publishPerSecond: Math.round(MESSAGES / ((publishedAt - loadStarted) / 1000)),
        deliverPerSecond: Math.round(seen.size / ((deliveredAt - loadStarted) / 1000)),
        clusterStartMs: Math.round(clusterStartMs),
        loadMs: Math.round(deliveredAt - loadStarted),
      };
      console.log(`cluster failover (transport): ${JSON.stringify(figures)}`);

      expect(lost).toEqual([]);
      expect([...seen.keys()].filter((id) => !/^t-\d+$/.test(id))).toEqual([]);
      expect(resumedConfirmAt).toBeGreaterThan(killedAt);
      expect(deliveries.length).toBeGreaterThan(deliveredBeforeKill);
      expect(firstSentAfterKillDeliveredAt).toBeGreaterThan(killedAt);
      expect(newLeader).toBeDefined();
      expect(newLeader).not.toBe(killed);
      expect(newLeader!.running).toBe(true);
    } finally {
      await publisher?.close();
      await subscriber.stopReceiving();
      await subscriber.close();
    }
  });
});
