import { DEFAULT_DELIVERY_BATCH_SIZE, DEFAULT_DELIVERY_MAX_IN_FLIGHT } from '@mmmq/consumer';
import { type DeliveryMode, Producer } from '@mmmq/producer';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { BenchContent } from '../payload';
import { commandOutput, freePort, log, ManagedProcess, REPO_ROOT, tempDir, track, waitForPort } from '../services';
import { HttpPublishers } from './http-publishers';
import { expectHosts, postDispatcher } from './mmmq-dispatchers';
import { httpRequest, readFsyncCounters } from './mmmq-http';
import { NEST_LOGGER, startConsumerApp } from './mmmq-consumer-app';
import { EmbeddedApp } from './mmmq-embedded';
import { type BenchListener, benchListener, BenchProducerModule } from './mmmq-nest-modules';
import { MmmqOutboxPipeline } from './mmmq-outbox';
import { mmmqRequestReply } from './mmmq-request-reply';
import { startPull } from './mmmq-pull';
import type { OutboxPipeline, OutboxRound } from './outbox-pipeline';
import { startPlainConsumers } from './plain-http-consumer';
import type {
  ConsumeHandle,
  FsyncCounters,
  OnMemberMessage,
  PlainDispatcherSettings,
  OnMessage,
  PullOptions,
  RequestReplyRig,
  RestartResult,
  SequentialPublishers,
  System,
  TopicPlan,
} from './system';

const BROKER_MAIN = path.join(REPO_ROOT, 'apps', 'broker', 'dist', 'main.js');

/**
 * MMMQ: the standalone broker (`apps/broker/dist/main.js`) on a fresh temp data dir, driven by the project's
 * own libraries: `Producer` from `@mmmq/producer` over the publish stream (`produce()` per message,
 * `produceBatch()` only to load the backlog) in a Nest application context, and a consumer Nest app
 * (platform-fastify) importing
 * `MmmqConsumerModule` with one class-style listener per group, which registers its dispatchers itself.
 */
export class MmmqSystem implements System {
  readonly id: string;
  readonly label: string;
  readonly kind: 'mmmq' | 'mmmq-mode';
  readonly description: string;
  readonly publishOnly?: string;
  private broker?: ManagedProcess;
  private rootDir?: string;
  private port = 0;
  private streamPort = 0;
  private producerContext?: INestApplicationContext;
  private producer?: Producer;
  private backlogConsumerPort = 0;

  /**
   * @param deliveryMode of every publish; `nonPersistent` is the publish-only variant (`mmmq-np`) shown beside MMMQ:
   *   ACK on receipt, before the fsync (docs/destinations.md#delivery-modes)
   */
  constructor(private readonly deliveryMode: DeliveryMode = 'persistent') {
    const persistent = deliveryMode === 'persistent';
    this.id = persistent ? 'mmmq' : 'mmmq-np';
    this.label = persistent ? 'MMMQ' : 'MMMQ nonPersistent';
    this.kind = persistent ? 'mmmq' : 'mmmq-mode';
    this.publishOnly = persistent
      ? undefined
      : 'publish workloads only: its deliveries are the persistent ones (a message is delivered once durable either way)';
    const ack = persistent
      ? "ACK once the journal record holding the message is fsync'd (one fsync per commit group, shared by every topic)"
      : 'every publish `deliveryMode: "nonPersistent"`: ACK on receipt, once the message has its place in the commit order, before its fsync (lost if the broker crashes before it; kept on a clean restart)';
    this.description = `the standalone broker on a fresh data dir; ${ack}. Clients: \`Producer\` (@mmmq/producer) publishing over the broker's publish stream (\`mmmq://\`, default batching: 4 batches in flight per topic) and a Nest app on platform-fastify with \`MmmqConsumerModule\` (@mmmq/consumer), default options`;
  }

  private get brokerUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (!this.broker) await this.newBroker();
    await this.openProducer();
  }

  private async openProducer(): Promise<void> {
    // The producer publishes over the broker's publish stream, its fastest transport; everything else is HTTP.
    const stream = `mmmq://127.0.0.1:${this.streamPort}`;
    this.producerContext = await NestFactory.createApplicationContext(BenchProducerModule.register(stream), { logger: NEST_LOGGER });
    this.producer = this.producerContext.get(Producer);
  }

  private async closeProducer(): Promise<void> {
    const context = this.producerContext;
    this.producerContext = undefined;
    this.producer = undefined;
    await context?.close();
  }

  private async newBroker(): Promise<void> {
    this.rootDir = tempDir('mmmq');
    this.port = await freePort();
    this.streamPort = await freePort();
    this.broker = track(
      new ManagedProcess(
        'MMMQ broker',
        process.execPath,
        [...(process.env.BENCH_BROKER_NODE_ARGS ?? '').split(' ').filter(Boolean), BROKER_MAIN],
        path.join(this.rootDir, '..', 'mmmq-broker.log'),
        {
          ...process.env,
          MMMQ_PORT: String(this.port),
          MMMQ_STREAM_PORT: String(this.streamPort),
          MMMQ_HOST: '127.0.0.1',
          MMMQ_ROOT_DIR: this.rootDir,
        },
      ),
    );
    await this.launch();
  }

  private async launch(): Promise<void> {
    const child = this.broker!.start();
    await waitForPort(this.port, 600_000, 'MMMQ broker', child);
    await waitForPort(this.streamPort, 60_000, 'MMMQ publish stream', child);
  }

  async stop(): Promise<void> {
    await this.closeProducer();
    await this.broker?.stop();
    this.broker = undefined;
  }

  brokerPids(): number[] {
    const pid = this.broker?.pid;
    return pid ? [pid] : [];
  }

  async version(): Promise<string> {
    const commit = await commandOutput('git', ['-C', REPO_ROOT, 'rev-parse', '--short', 'HEAD']);
    const dirty = (await commandOutput('git', ['-C', REPO_ROOT, 'status', '--porcelain', '--', 'packages', 'apps'])).length > 0;
    return `MMMQ ${commit}${dirty ? ' + uncommitted changes' : ''} (Node ${process.version})`;
  }

  /** Only the variant names a mode: the persistent system sends what it always sent (the topic default). */
  private get options(): { deliveryMode?: DeliveryMode } {
    return this.deliveryMode === 'persistent' ? {} : { deliveryMode: this.deliveryMode };
  }

  async declare(): Promise<void> {
    // Topics are created by their first message; the consumer app registers its dispatchers itself.
  }

  async publish(topic: string, content: BenchContent): Promise<void> {
    await this.producer!.produce(topic, content, this.options);
  }

  async publishBatch(topic: string, contents: BenchContent[]): Promise<void> {
    await this.producer!.produceBatch(contents.map((content) => ({ topic, content, ...this.options })));
  }

  async publishScheduled(topic: string, contents: BenchContent[], deliverAt: number): Promise<void> {
    const at = new Date(deliverAt);
    await this.producer!.produceBatch(contents.map((content) => ({ topic, content, deliverAt: at, ...this.options })));
  }

  requestReply(plan: TopicPlan, concurrency: number): Promise<RequestReplyRig> {
    return mmmqRequestReply(this.brokerUrl, () => this.brokerPids(), plan, concurrency);
  }

  async openSequentialPublishers(topic: string, count: number): Promise<SequentialPublishers> {
    return new HttpPublishers(this.port, topic, count, this.options.deliveryMode);
  }

  fsyncCounters(): Promise<FsyncCounters | string> {
    return readFsyncCounters(this.port);
  }

  private consumerIds(plan: TopicPlan): string[] {
    return plan.groups.map((group) => `${plan.prefix}.${group}`);
  }

  /** One topic: its name; several: a pattern matching exactly this round's topics. */
  private pattern(plan: TopicPlan): string {
    return plan.topics.length === 1 ? plan.topics[0] : `${plan.prefix}.*`;
  }

  private async consumerApp(plan: TopicPlan, onMessage: OnMessage, port: number, autoRegister: boolean): Promise<INestApplication> {
    const ids = this.consumerIds(plan);
    const listeners = plan.groups.map((group, g) =>
      benchListener(this.pattern(plan), g, onMessage, { name: `bench-${group}`, consumerId: ids[g] }),
    );
    return this.nestApp(listeners, port, autoRegister);
  }

  private nestApp(listeners: BenchListener[], port: number, autoRegister: boolean): Promise<INestApplication> {
    return startConsumerApp(this.brokerUrl, listeners, port, { autoRegister });
  }

  async consume(plan: TopicPlan, onMessage: OnMessage): Promise<ConsumeHandle> {
    const app = await this.consumerApp(plan, onMessage, await freePort(), true);
    return { close: () => app.close() };
  }

  /**
   * `members` consumer apps (the same Nest app as `consume`, one listener each) serving one consumerId. The
   * bench registers them itself, one `POST /mmmq/dispatchers` per member with the settings the library's
   * defaults ask for, so the figure does not depend on how the library's registrar treats an existing group.
   */
  async consumeCompeting(plan: TopicPlan, members: number, onMessage: OnMemberMessage): Promise<ConsumeHandle> {
    const [consumerId] = this.consumerIds(plan);
    const apps: INestApplication[] = [];
    const close = async () => void (await Promise.all(apps.map((app) => app.close())));
    try {
      const hosts: string[] = [];
      for (let m = 0; m < members; m++) {
        const port = await freePort();
        apps.push(
          await this.nestApp([benchListener(this.pattern(plan), m, onMessage, { name: `bench-member-${m}`, consumerId })], port, false),
        );
        const host = `http://127.0.0.1:${port}`;
        await postDispatcher(this.port, {
          consumerId,
          host,
          pattern: this.pattern(plan),
          batchSize: DEFAULT_DELIVERY_BATCH_SIZE,
          maxInFlight: DEFAULT_DELIVERY_MAX_IN_FLIGHT,
        });
        hosts.push(host);
      }
      await expectHosts(this.port, consumerId, hosts);
    } catch (error) {
      await close();
      throw error;
    }
    return { close };
  }

  /** A pull-only consumerId (a dispatcher without host), fetched over the pull API. */
  async pull(plan: TopicPlan, options: PullOptions, onMessage: OnMessage): Promise<ConsumeHandle> {
    const [consumerId] = this.consumerIds(plan);
    await postDispatcher(this.port, { consumerId, pattern: this.pattern(plan) });
    return startPull(this.port, consumerId, options, onMessage);
  }

  plainConsumers(plan: TopicPlan, members: number, onMessage: OnMemberMessage, settings?: PlainDispatcherSettings): Promise<ConsumeHandle> {
    return startPlainConsumers(this.port, this.consumerIds(plan)[0], this.pattern(plan), members, onMessage, settings);
  }

  /**
   * The one-app form in a process of its own, beside this broker (which stays idle). Persistent messages
   * only: the nonPersistent variant runs the publish workloads alone.
   */
  startEmbeddedApp(pattern: string): Promise<EmbeddedApp> {
    if (this.deliveryMode !== 'persistent') return Promise.reject(new Error('the embedded app publishes persistent messages only'));
    return EmbeddedApp.start(pattern);
  }

  /** The pattern on this broker: @mmmq/postgres's outbox, relay and inbox (see `mmmq-outbox.ts`). */
  outboxPipeline(round: OutboxRound): Promise<OutboxPipeline> {
    return MmmqOutboxPipeline.create(round, { broker: this.brokerUrl, stream: `mmmq://127.0.0.1:${this.streamPort}` });
  }

  async drop(plan: TopicPlan): Promise<void> {
    // MMMQ cannot delete a topic; its data stays in the temp dir. The dispatchers go, so nothing more is pushed.
    for (const consumerId of this.consumerIds(plan)) {
      const answer = await httpRequest(this.port, 'DELETE', `/mmmq/dispatchers/${consumerId}`);
      if (answer.status !== 204 && answer.status !== 404) log(`MMMQ: DELETE dispatcher ${consumerId}: ${answer.status} ${answer.text}`);
    }
  }

  readonly restart = {
    how: 'SIGTERM (the broker finishes in-flight work and closes every topic), then the same command on the same data dir. The consumer app (autoRegister off) is already listening and its dispatcher is in `dispatchers.json`, so the broker pushes the backlog as soon as it has booted',
    fresh: async () => {
      await this.stop();
      if (this.rootDir) rmSync(this.rootDir, { recursive: true, force: true });
      await this.start();
    },
    /**
     * The dispatcher must exist before the backlog, with the consumer's host and the library's default settings. It
     * is registered through the API: a consumer app that registered it would take its host out again when it closes.
     */
    beforeFill: async (plan: TopicPlan) => {
      this.backlogConsumerPort = await freePort();
      const [consumerId] = this.consumerIds(plan);
      await postDispatcher(this.port, {
        consumerId,
        host: `http://127.0.0.1:${this.backlogConsumerPort}`,
        pattern: this.pattern(plan),
        batchSize: DEFAULT_DELIVERY_BATCH_SIZE,
        maxInFlight: DEFAULT_DELIVERY_MAX_IN_FLIGHT,
      });
    },
    restartAndConsume: async (plan: TopicPlan, onMessage: OnMessage): Promise<RestartResult> => {
      await this.closeProducer();
      await this.broker!.stop();
      const app = await this.consumerApp(plan, onMessage, this.backlogConsumerPort, false);
      const restartAt = performance.now();
      await this.launch();
      const readyAt = performance.now();
      await this.openProducer();
      return { restartAt, readyAt, handle: { close: () => app.close() } };
    },
  };
}
