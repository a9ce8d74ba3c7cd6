import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import type { ConsumerMessages, JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { decode, encode, type BenchContent } from '../payload';
import { commandOutput, freePort, ManagedProcess, NATS_SYSTEM_PORT, natsSystemPids, sleep, tempDir, track, waitForPort } from '../services';
import type {
  ConsumeHandle,
  OnMemberMessage,
  OnMessage,
  PullOptions,
  RestartResult,
  SequentialPublishers,
  System,
  TopicPlan,
} from './system';

type NatsConnection = Awaited<ReturnType<typeof connect>>;

/** Messages a pull consumer asks for at once. */
const PULL_BATCH = 1000;
/** The client's floor for a fetch's `expires`. */
const MIN_FETCH_EXPIRES_MS = 1000;
/** JetStream's default (1000) would cap a consumer below the pull batch; raised so it never limits. */
const MAX_ACK_PENDING = 20_000;

/**
 * NATS JetStream through @nats-io/jetstream: one file-storage stream per round (subjects `{prefix}.>`), one
 * durable pull consumer with explicit acks per (topic, group), filtered on the topic when there are several,
 * consumed with `consume({ max_messages: 1000 })` and one `ack()` per message; publishing is `js.publish`,
 * which resolves on the PubAck.
 */
export class NatsJetStreamSystem implements System {
  readonly id = 'nats-jetstream';
  readonly label = 'NATS JetStream';
  readonly kind = 'peer' as const;
  readonly description =
    "file storage, durable consumers, explicit acks. **The PubAck is sent before the message is fsync'd** (JetStream syncs its files every 2 minutes by default), so it is not a durable peer";
  private port = NATS_SYSTEM_PORT;
  /** Set once the backlog workload moved this system to a server the bench runs itself. */
  private server?: ManagedProcess;
  private storeDir?: string;
  private nc?: NatsConnection;
  private js?: JetStreamClient;
  private jsm?: JetStreamManager;

  async start(): Promise<void> {
    this.nc = await connect({ servers: `127.0.0.1:${this.port}`, maxReconnectAttempts: 0 });
    this.js = jetstream(this.nc);
    this.jsm = await jetstreamManager(this.nc);
  }

  async stop(): Promise<void> {
    await this.nc?.close().catch(() => undefined);
    this.nc = undefined;
    await this.server?.stop();
  }

  brokerPids(): number[] {
    if (this.server) {
      const pid = this.server.pid;
      return pid ? [pid] : [];
    }
    return natsSystemPids();
  }

  async version(): Promise<string> {
    return commandOutput('nats-server', ['--version']);
  }

  private stream(plan: TopicPlan): string {
    return plan.prefix;
  }

  private durable(plan: TopicPlan, t: number, g: number): string {
    return plan.topics.length === 1 ? plan.groups[g] : `${plan.groups[g]}-t${t}`;
  }

  async declare(plan: TopicPlan): Promise<void> {
    const stream = this.stream(plan);
    await this.jsm!.streams.add({ name: stream, subjects: [`${plan.prefix}.>`], storage: StorageType.File, num_replicas: 1 });
    for (let t = 0; t < plan.topics.length; t++) {
      for (let g = 0; g < plan.groups.length; g++) {
        await this.jsm!.consumers.add(stream, {
          durable_name: this.durable(plan, t, g),
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.All,
          max_ack_pending: MAX_ACK_PENDING,
          ...(plan.topics.length > 1 ? { filter_subject: plan.topics[t] } : {}),
        });
      }
    }
  }

  async publish(topic: string, content: BenchContent): Promise<void> {
    await this.js!.publish(topic, encode(content));
  }

  /** One connection for all: the NATS client multiplexes, and each publisher still awaits its PubAck. */
  async openSequentialPublishers(topic: string): Promise<SequentialPublishers> {
    return {
      publish: (_c, content) => this.publish(topic, content),
      close: async () => undefined,
    };
  }

  async consume(plan: TopicPlan, onMessage: OnMessage): Promise<ConsumeHandle> {
    const subscribers: ConsumeHandle[] = [];
    for (let t = 0; t < plan.topics.length; t++) {
      for (let g = 0; g < plan.groups.length; g++)
        subscribers.push(await this.subscribe(plan, this.durable(plan, t, g), (c) => onMessage(g, c)));
    }
    return this.all(subscribers);
  }

  /** One durable pull consumer, `members` subscribers consuming from it at once. */
  async consumeCompeting(plan: TopicPlan, members: number, onMessage: OnMemberMessage): Promise<ConsumeHandle> {
    const durable = this.durable(plan, 0, 0);
    return this.all(await Promise.all(Array.from({ length: members }, (_, m) => this.subscribe(plan, durable, (c) => onMessage(m, c)))));
  }

  /**
   * `fetch({ max_messages: batch, expires })` in a loop, each message handled as it arrives and acknowledged
   * with its own `ack()` (explicit acks have no batch form; the client writes them out together).
   */
  async pull(plan: TopicPlan, options: PullOptions, onMessage: OnMessage): Promise<ConsumeHandle> {
    const consumer = await this.js!.consumers.get(this.stream(plan), this.durable(plan, 0, 0));
    let open = true;
    let current: ConsumerMessages | undefined;
    const loop = (async () => {
      while (open) {
        current = await consumer.fetch({ max_messages: options.batch, expires: Math.max(MIN_FETCH_EXPIRES_MS, options.waitMs) });
        for await (const m of current) {
          onMessage(0, decode(Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength)));
          m.ack();
        }
      }
    })();
    return {
      close: async () => {
        open = false;
        current?.stop();
        await loop;
      },
    };
  }

  /** `consume({ max_messages: 1000 })` on a durable, one `ack()` per message. */
  private async subscribe(plan: TopicPlan, durable: string, onMessage: (content: BenchContent) => void): Promise<ConsumeHandle> {
    const consumer = await this.js!.consumers.get(this.stream(plan), durable);
    const messages = await consumer.consume({ max_messages: PULL_BATCH });
    const loop = (async () => {
      for await (const m of messages) {
        onMessage(decode(Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength)));
        m.ack();
      }
    })();
    return {
      close: async () => {
        messages.stop();
        await loop;
      },
    };
  }

  private all(handles: ConsumeHandle[]): ConsumeHandle {
    return { close: async () => void (await Promise.all(handles.map((h) => h.close()))) };
  }

  async drop(plan: TopicPlan): Promise<void> {
    await this.jsm!.streams.delete(this.stream(plan));
  }

  readonly restart = {
    how: "a `nats-server -js` the bench starts itself (same binary and flags as the machine's, own port and store dir): SIGTERM, then the same command; JetStream recovers the stream from its files",
    fresh: async () => {
      await this.stop();
      if (this.storeDir) rmSync(this.storeDir, { recursive: true, force: true });
      const dir = tempDir('nats');
      this.storeDir = dir;
      this.port = await freePort();
      this.server = track(
        new ManagedProcess(
          'nats-server (bench)',
          '/usr/sbin/nats-server',
          ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', dir],
          path.join(dir, '..', 'nats.log'),
        ),
      );
      const child = this.server.start();
      await waitForPort(this.port, 30_000, this.server.name, child);
      await this.start();
    },
    restartAndConsume: async (plan: TopicPlan, onMessage: OnMessage): Promise<RestartResult> => {
      await this.nc?.close().catch(() => undefined);
      await this.server!.stop();
      const restartAt = performance.now();
      const child = this.server!.start();
      await waitForPort(this.port, 600_000, this.server!.name, child);
      await this.start();
      // The stream may still be recovering after the port opens.
      while (
        !(await this.jsm!.streams.info(this.stream(plan)).then(
          () => true,
          () => false,
        ))
      )
        await sleep(5);
      const readyAt = performance.now();
      return { restartAt, readyAt, handle: await this.consume(plan, onMessage) };
    },
  };
}
