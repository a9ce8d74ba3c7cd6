import { Producer } from '@mmmq/producer';
import { DEFAULT_PREFETCH, RabbitMqTransport } from '@mmmq/rabbitmq';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import amqp from 'amqplib';
import type { BenchContent } from '../payload';
import { commandOutput, rabbitPids, REPO_ROOT } from '../services';
import { NEST_LOGGER } from './mmmq-consumer-app';
import { benchListener, BenchConsumerModule, BenchProducerModule, type BenchListener } from './mmmq-nest-modules';
import type { ConsumeHandle, OnMemberMessage, OnMessage, System, TopicPlan } from './system';

const URL = 'amqp://guest:guest@127.0.0.1:5672';
/** Unacknowledged deliveries per listener in the `prefetch` variant: what the raw RabbitMQ rows' consumers use. */
export const RAW_RABBITMQ_PREFETCH = 1000;

/** What one round declared: its transport (exchange and queue prefix of its own) and the producer on it. */
interface Round {
  prefix: string;
  transport: RabbitMqTransport;
  producerContext: INestApplicationContext;
  producer: Producer;
}

/**
 * MMMQ's own libraries on RabbitMQ quorum queues (docs/scaling.md): `Producer` (`MmmqProducerModule`, default
 * batching) and `@MMMQListener` listeners (`MmmqConsumerModule`, default options) with `transport: new RabbitMqTransport(…)` of
 * `@mmmq/rabbitmq`, on the shared RabbitMQ. Each round has a transport of its own (exchange = the round's prefix,
 * queue prefix = the round's prefix + `.`), whose exchanges and queues are deleted after the round.
 */
export class MmmqOnRabbitMqSystem implements System {
  readonly id: string;
  readonly label: string;
  readonly kind = 'mmmq-transport' as const;
  readonly description: string;
  readonly skips: Readonly<Record<string, string>> = {
    'http-publishers':
      "it measures bare clients, one unpipelined confirmed publish each, without MMMQ's libraries: the RabbitMQ quorum row is that figure",
    'pull-100':
      "the consumer's pull mode (`delivery: 'pull'`) fetches from the MMMQ broker; on a transport, deliveries come as the transport hands them over (its prefetch)",
  };
  readonly restart =
    "it would restart the shared RabbitMQ node, which the RabbitMQ rows measure; the transport's reconnection is proven by the conformance suite (docs/scaling.md)";
  private round?: Round;

  /** @param prefetch the transport's `prefetch`; absent: its default (`DEFAULT_PREFETCH`, 100) */
  constructor(private readonly prefetch?: number) {
    this.id = prefetch === undefined ? 'mmmq-api-rabbitmq' : `mmmq-api-rabbitmq-p${prefetch}`;
    this.label =
      prefetch === undefined
        ? `MMMQ API on RabbitMQ quorum, default prefetch (${DEFAULT_PREFETCH})`
        : `MMMQ API on RabbitMQ quorum, prefetch ${prefetch}`;
    const consumer =
      prefetch === undefined
        ? `the transport's default prefetch (\`DEFAULT_PREFETCH\`, ${DEFAULT_PREFETCH}: the listener's \`concurrency\`, 1, is smaller)`
        : `\`prefetch: ${prefetch}\` (as the RabbitMQ rows' consumers)`;
    this.description =
      "MMMQ's own libraries with `transport: new RabbitMqTransport({ url, exchange, queuePrefix })` (@mmmq/rabbitmq): quorum queues on the same RabbitMQ node as the RabbitMQ rows, a publish resolves on the publisher confirm (fsync'd in the Raft log). " +
      `Clients: \`Producer\` (@mmmq/producer, default batching: one batch in flight with a transport, each message confirmed on its own) and a Nest application context with \`MmmqConsumerModule\` (@mmmq/consumer, default options), one \`@MMMQListener\` per consumer, ${consumer}`;
  }

  async start(): Promise<void> {
    // Fails the start (the system is reported unavailable) when RabbitMQ does not answer.
    const connection = await amqp.connect(URL);
    await connection.close();
  }

  async stop(): Promise<void> {
    await this.endRound();
  }

  brokerPids(): number[] {
    return rabbitPids();
  }

  async version(): Promise<string> {
    const commit = await commandOutput('git', ['-C', REPO_ROOT, 'rev-parse', '--short', 'HEAD']);
    return `MMMQ ${commit} on RabbitMQ ${await commandOutput('rabbitmqctl', ['version'])}`;
  }

  private consumerId(group: string): string {
    return `bench.${group}`;
  }

  /** One topic: its name; several: a pattern matching exactly this round's topics (a `*` binding). */
  private pattern(plan: TopicPlan): string {
    return plan.topics.length === 1 ? plan.topics[0] : `${plan.prefix}.*`;
  }

  /**
   * The round's transport and producer, and each group's queue: the consumer declares it when it subscribes, but
   * the publish workloads run no consumer, and RabbitMQ drops what no queue is bound for (the raw rows declare
   * their queues here too). A subscriber of the transport declares them and is closed before anything is sent.
   */
  async declare(plan: TopicPlan): Promise<void> {
    await this.endRound();
    const transport = new RabbitMqTransport({
      url: URL,
      exchange: plan.prefix,
      queuePrefix: `${plan.prefix}.`,
      ...(this.prefetch === undefined ? {} : { prefetch: this.prefetch }),
    });
    const producerContext = await NestFactory.createApplicationContext(BenchProducerModule.onTransport(transport), { logger: NEST_LOGGER });
    this.round = { prefix: plan.prefix, transport, producerContext, producer: producerContext.get(Producer) };
    const subscriber = transport.createSubscriber();
    try {
      for (const group of plan.groups) {
        const listener = { consumerId: this.consumerId(group), pattern: this.pattern(plan), concurrency: 1, ackMode: 'auto' as const };
        // Nothing is published yet; were anything delivered, it would go back to the queue.
        await subscriber.subscribe(listener, () => Promise.reject(new Error('only declaring the queue')));
      }
    } finally {
      await subscriber.close();
    }
  }

  async publish(topic: string, content: BenchContent): Promise<void> {
    await this.round!.producer.produce(topic, content);
  }

  /** One consumer application with a listener per group. */
  async consume(plan: TopicPlan, onMessage: OnMessage): Promise<ConsumeHandle> {
    const listeners = plan.groups.map((group, g) =>
      benchListener(this.pattern(plan), g, onMessage, { name: `bench-${group}`, consumerId: this.consumerId(group) }),
    );
    const app = await this.consumerApp(listeners);
    return { close: () => app.close() };
  }

  /** `members` consumer applications, one listener each, all with the group's consumerId: consumers of one queue. */
  async consumeCompeting(plan: TopicPlan, members: number, onMessage: OnMemberMessage): Promise<ConsumeHandle> {
    const consumerId = this.consumerId(plan.groups[0]);
    const apps: INestApplicationContext[] = [];
    const close = async () => void (await Promise.all(apps.map((app) => app.close())));
    try {
      for (let m = 0; m < members; m++) {
        apps.push(await this.consumerApp([benchListener(this.pattern(plan), m, onMessage, { name: `bench-member-${m}`, consumerId })]));
      }
    } catch (error) {
      await close();
      throw error;
    }
    return { close };
  }

  /** Resolves once bootstrapped: the consumer subscribes every listener on the transport at bootstrap. */
  private consumerApp(listeners: BenchListener[]): Promise<INestApplicationContext> {
    return NestFactory.createApplicationContext(BenchConsumerModule.onTransport(this.round!.transport, listeners), {
      logger: NEST_LOGGER,
      abortOnError: false,
    });
  }

  /** The consumers are closed by then (their handles); the producer goes, then what the transport declared. */
  async drop(plan: TopicPlan): Promise<void> {
    if (this.round?.prefix === plan.prefix) await this.endRound();
  }

  private async endRound(): Promise<void> {
    const round = this.round;
    this.round = undefined;
    if (!round) return;
    await round.producerContext.close();
    await round.transport.deleteDeclared();
  }
}
