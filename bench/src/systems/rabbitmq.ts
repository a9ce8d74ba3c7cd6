import amqp from 'amqplib';
import type { Channel, ChannelModel, ConfirmChannel } from 'amqplib';
import { decode, encode, type BenchContent } from '../payload';
import { commandOutput, log, mustRun, portOpen, rabbitPids, sleep } from '../services';
import type { OutboxPipeline, OutboxRound } from './outbox-pipeline';
import { RabbitBatchAcker } from './rabbitmq-batch-acker';
import { nestRmqRequestReply } from './nest-rmq-request-reply';
import { RabbitOutboxPipeline } from './rabbitmq-outbox';
import type {
  ConsumeHandle,
  OnMemberMessage,
  OnMessage,
  PullOptions,
  RequestReplyRig,
  RestartResult,
  SequentialPublishers,
  System,
  TopicPlan,
} from './system';

const URL = 'amqp://guest:guest@127.0.0.1:5672';
const EXCHANGE = 'mmmq-bench';
/** Unacknowledged deliveries per consumer. */
const PREFETCH = 1000;

/**
 * RabbitMQ through amqplib: one direct exchange, one durable queue per (topic, group) bound with the topic
 * as routing key, persistent messages, publisher confirms on one confirm channel, and consumers with
 * manual acks (one channel per group, prefetch 1000 per consumer, one basic.ack per message).
 */
export class RabbitMqSystem implements System {
  readonly id: string;
  readonly label: string;
  readonly kind = 'durable-peer' as const;
  readonly description: string;
  private connection?: ChannelModel;
  private publisher?: ConfirmChannel;
  private cliMs = NaN;

  constructor(private readonly queueType: 'classic' | 'quorum') {
    this.id = `rabbitmq-${queueType}`;
    this.label = `RabbitMQ ${queueType}`;
    this.description =
      queueType === 'classic'
        ? 'classic durable queues, persistent messages; a publisher confirm is sent once the message is on disk (fsync)'
        : "quorum queues (Raft, one node); a publisher confirm is sent once the entry is fsync'd in the Raft log";
  }

  async start(): Promise<void> {
    const connection = await amqp.connect(URL);
    this.connection = connection;
    connection.on('error', (error: Error) => log(`${this.label}: connection error: ${error.message}`));
    // The other queue type's backlog round restarts the node, which closes this connection too.
    connection.on('close', () => {
      if (this.connection === connection) this.connection = undefined;
    });
    this.publisher = await this.connection.createConfirmChannel();
    this.publisher.on('error', (error: Error) => log(`${this.label}: channel error: ${error.message}`));
    await this.publisher.assertExchange(EXCHANGE, 'direct', { durable: true });
  }

  async stop(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    await connection?.close().catch(() => undefined);
    this.publisher = undefined;
  }

  brokerPids(): number[] {
    return rabbitPids();
  }

  async version(): Promise<string> {
    return `RabbitMQ ${await commandOutput('rabbitmqctl', ['version'])}`;
  }

  private queue(topic: string, group: string): string {
    return `${topic}.${group}`;
  }

  private async ensureConnected(): Promise<void> {
    if (!this.connection) await this.start();
  }

  async declare(plan: TopicPlan): Promise<void> {
    await this.ensureConnected();
    const channel = this.publisher!;
    for (const topic of plan.topics) {
      for (const group of plan.groups) {
        const queue = this.queue(topic, group);
        await channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': this.queueType } });
        await channel.bindQueue(queue, EXCHANGE, topic);
      }
    }
  }

  publish(topic: string, content: BenchContent): Promise<void> {
    return this.confirmedPublish(this.publisher!, topic, content);
  }

  private confirmedPublish(channel: ConfirmChannel, topic: string, content: BenchContent): Promise<void> {
    return new Promise((resolve, reject) => {
      channel.publish(EXCHANGE, topic, encode(content), { persistent: true, contentType: 'application/json' }, (error) =>
        error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(),
      );
    });
  }

  async openSequentialPublishers(topic: string, count: number): Promise<SequentialPublishers> {
    await this.ensureConnected();
    const channels: ConfirmChannel[] = [];
    for (let c = 0; c < count; c++) {
      const channel = await this.connection!.createConfirmChannel();
      channel.on('error', (error: Error) => log(`${this.label}: publisher channel error: ${error.message}`));
      channels.push(channel);
    }
    return {
      publish: (c, content) => this.confirmedPublish(channels[c], topic, content),
      close: async () => void (await Promise.all(channels.map((c) => c.close().catch(() => undefined)))),
    };
  }

  async consume(plan: TopicPlan, onMessage: OnMessage): Promise<ConsumeHandle> {
    const channels: Channel[] = [];
    for (let g = 0; g < plan.groups.length; g++) {
      const channel = await this.consumerChannel(PREFETCH);
      for (const topic of plan.topics) await this.ackEach(channel, this.queue(topic, plan.groups[g]), (c) => onMessage(g, c));
      channels.push(channel);
    }
    return this.closing(channels);
  }

  /** One queue, `members` consumers on it, each on its own channel with the usual prefetch. */
  async consumeCompeting(plan: TopicPlan, members: number, onMessage: OnMemberMessage): Promise<ConsumeHandle> {
    const queue = this.queue(plan.topics[0], plan.groups[0]);
    const channels: Channel[] = [];
    for (let m = 0; m < members; m++) {
      const channel = await this.consumerChannel(PREFETCH);
      await this.ackEach(channel, queue, (c) => onMessage(m, c));
      channels.push(channel);
    }
    return this.closing(channels);
  }

  /**
   * AMQP 0-9-1 has no batch get (basic.get is one message per round trip), so a batch pull is what its users
   * do instead: a consumer with prefetch = batch, acknowledging the batch with one `basic.ack multiple`.
   */
  async pull(plan: TopicPlan, options: PullOptions, onMessage: OnMessage): Promise<ConsumeHandle> {
    const channel = await this.consumerChannel(options.batch);
    const acker = new RabbitBatchAcker(channel, options);
    await channel.consume(
      this.queue(plan.topics[0], plan.groups[0]),
      (message) => {
        if (!message) return;
        onMessage(0, decode(message.content));
        acker.handled(message);
      },
      { noAck: false },
    );
    const channels = this.closing([channel]);
    return {
      close: async () => {
        acker.stop();
        await channels.close();
      },
    };
  }

  private async consumerChannel(prefetch: number): Promise<Channel> {
    const channel = await this.connection!.createChannel();
    channel.on('error', (error: Error) => log(`${this.label}: consumer channel error: ${error.message}`));
    await channel.prefetch(prefetch, false);
    return channel;
  }

  /** Consumes `queue` on `channel` with manual acks, one basic.ack per message. */
  private async ackEach(channel: Channel, queue: string, handle: (content: BenchContent) => void): Promise<void> {
    await channel.consume(
      queue,
      (message) => {
        if (!message) return;
        handle(decode(message.content));
        channel.ack(message);
      },
      { noAck: false },
    );
  }

  private closing(channels: Channel[]): ConsumeHandle {
    return { close: async () => void (await Promise.all(channels.map((c) => c.close().catch(() => undefined)))) };
  }

  /** The pattern as RabbitMQ's users build it (see `rabbitmq-outbox.ts`), on a queue of this system's type. */
  outboxPipeline(round: OutboxRound): Promise<OutboxPipeline> {
    return RabbitOutboxPipeline.create(round, this.queueType);
  }

  /**
   * Nest's RMQ transport: its defaults on the classic system (a durable classic queue, requests not persistent);
   * on the quorum system a quorum queue and persistent requests. Both keep Nest's `noAck`: with `noAck: false` its
   * server acknowledges nothing by itself, and the handler, the same as MMMQ's, does not either.
   */
  async requestReply(plan: TopicPlan, concurrency: number): Promise<RequestReplyRig> {
    await this.ensureConnected();
    const rmq =
      this.queueType === 'classic' ? {} : { queueOptions: { durable: true, arguments: { 'x-queue-type': 'quorum' } }, persistent: true };
    const rig = await nestRmqRequestReply(URL, () => this.brokerPids(), plan, concurrency, rmq);
    return { ...rig, close: async () => (await rig.close(), void (await this.publisher!.deleteQueue(rig.queue))) };
  }

  async drop(plan: TopicPlan): Promise<void> {
    for (const topic of plan.topics) {
      for (const group of plan.groups) await this.publisher!.deleteQueue(this.queue(topic, group));
    }
  }

  readonly restart = {
    how: "`rabbitmqctl stop_app`, then `start_app` (the Erlang VM stays up; queues are recovered from disk); the time includes the CLI's own start-up",
    fresh: () => this.ensureConnected(),
    restartAndConsume: async (plan: TopicPlan, onMessage: OnMessage): Promise<RestartResult> => {
      await this.stop();
      // How much of the restart time is the CLI's own start-up, told in the round's note.
      const cliStart = performance.now();
      await mustRun('rabbitmqctl', ['eval', 'ok.']);
      this.cliMs = performance.now() - cliStart;
      await mustRun('rabbitmqctl', ['stop_app']);
      const restartAt = performance.now();
      await mustRun('rabbitmqctl', ['start_app'], 600_000);
      while (!(await portOpen(5672))) await sleep(10);
      await this.start();
      const readyAt = performance.now();
      return {
        restartAt,
        readyAt,
        handle: await this.consume(plan, onMessage),
        note: `a bare \`rabbitmqctl eval ok.\` takes ${Math.round(this.cliMs)} ms here, included in these times`,
      };
    },
  };
}
