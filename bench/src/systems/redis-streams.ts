import { Redis } from 'ioredis';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { encode, type BenchContent } from '../payload';
import { commandOutput, freePort, log, ManagedProcess, sleep, tempDir, track, waitForPort } from '../services';
import { readGroup, type GroupReader } from './redis-group-reader';
import type {
  ConsumeHandle,
  OnMemberMessage,
  OnMessage,
  PullOptions,
  RestartResult,
  SequentialPublishers,
  System,
  SystemKind,
  TopicPlan,
} from './system';

/** Entries read per XREADGROUP (per stream). */
const READ_COUNT = 1000;
const BLOCK_MS = 200;

/**
 * Redis Streams on a redis-server the bench starts itself (AOF on, `appendfsync always` or `everysec`, no
 * RDB snapshots, its own temp dir and port). Publishing is XADD through ioredis with auto-pipelining; each
 * group is a consumer group read by one consumer with XREADGROUP COUNT 1000 BLOCK on its own connection,
 * acknowledging each batch it has handled with one XACK.
 */
export class RedisStreamsSystem implements System {
  readonly id: string;
  readonly label: string;
  readonly kind: SystemKind;
  readonly description: string;
  private server?: ManagedProcess;
  private dir?: string;
  private port = 0;
  private client?: Redis;

  constructor(private readonly fsync: 'always' | 'everysec') {
    this.id = `redis-${fsync}`;
    this.label = `Redis Streams ${fsync}`;
    this.kind = fsync === 'always' ? ('durable-peer' as const) : ('peer' as const);
    this.description =
      fsync === 'always'
        ? "AOF with `appendfsync always`: XADD is answered after the AOF write is fsync'd (one fsync per event-loop turn)"
        : 'AOF with `appendfsync everysec`: XADD is answered before any fsync; up to ~1 s of acknowledged writes can be lost (not durable)';
  }

  async start(): Promise<void> {
    if (!this.server) await this.newServer();
    this.client = this.connect();
    await this.client.ping();
  }

  /** Auto-pipelining on for the shared client; off for the sequential publishers, which await every XADD. */
  private connect(enableAutoPipelining = true): Redis {
    const client = new Redis({ port: this.port, host: '127.0.0.1', enableAutoPipelining, maxRetriesPerRequest: null, lazyConnect: false });
    client.on('error', (error: Error) => log(`${this.label}: ${error.message}`));
    return client;
  }

  private async newServer(): Promise<void> {
    this.dir = tempDir(`redis-${this.fsync}`);
    this.port = await freePort();
    this.server = track(
      new ManagedProcess(
        `redis-server (${this.fsync})`,
        'redis-server',
        [
          '--port',
          String(this.port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'yes',
          '--appendfsync',
          this.fsync,
          '--dir',
          this.dir,
          '--daemonize',
          'no',
        ],
        path.join(this.dir, '..', `redis-${this.fsync}.log`),
      ),
    );
    await this.launch();
  }

  /** Starts the process and waits until it has loaded its AOF and answers PING. */
  private async launch(): Promise<void> {
    const child = this.server!.start();
    await waitForPort(this.port, 120_000, this.server!.name, child);
    // ioredis's own ready check sleeps a whole `loading_eta_seconds` (at least 1 s) while Redis loads, which
    // would be charged to Redis: poll PING instead.
    const probe = new Redis({
      port: this.port,
      host: '127.0.0.1',
      lazyConnect: true,
      enableReadyCheck: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      for (;;) {
        try {
          await probe.ping();
          return;
        } catch (error) {
          if (!/LOADING/.test((error as Error).message)) throw error;
          await sleep(5);
        }
      }
    } finally {
      probe.disconnect();
    }
  }

  async stop(): Promise<void> {
    this.client?.disconnect();
    this.client = undefined;
    await this.server?.stop();
    this.server = undefined;
  }

  brokerPids(): number[] {
    const pid = this.server?.pid;
    return pid ? [pid] : [];
  }

  async version(): Promise<string> {
    return (await commandOutput('redis-server', ['--version'])).replace(/ sha=.*$/, '');
  }

  async declare(plan: TopicPlan): Promise<void> {
    for (const topic of plan.topics) {
      for (const group of plan.groups) await this.client!.xgroup('CREATE', topic, group, '0', 'MKSTREAM');
    }
  }

  async publish(topic: string, content: BenchContent): Promise<void> {
    await this.client!.xadd(topic, '*', 'd', encode(content));
  }

  async openSequentialPublishers(topic: string, count: number): Promise<SequentialPublishers> {
    const clients = Array.from({ length: count }, () => this.connect(false));
    await Promise.all(clients.map((c) => c.ping()));
    return {
      publish: async (c, content) => void (await clients[c].xadd(topic, '*', 'd', encode(content))),
      close: async () => clients.forEach((c) => c.disconnect()),
    };
  }

  async consume(plan: TopicPlan, onMessage: OnMessage): Promise<ConsumeHandle> {
    return this.readers(plan.groups.length, (g) => ({
      group: plan.groups[g],
      consumer: 'bench',
      topics: plan.topics,
      count: READ_COUNT,
      blockMs: BLOCK_MS,
      onEntry: (c) => onMessage(g, c),
    }));
  }

  /** One consumer group, `members` consumers in it, each reading on its own connection. */
  async consumeCompeting(plan: TopicPlan, members: number, onMessage: OnMemberMessage): Promise<ConsumeHandle> {
    return this.readers(members, (m) => ({
      group: plan.groups[0],
      consumer: `bench-${m}`,
      topics: plan.topics,
      count: READ_COUNT,
      blockMs: BLOCK_MS,
      onEntry: (c) => onMessage(m, c),
    }));
  }

  /** XREADGROUP COUNT batch BLOCK waitMs, then one XACK for the batch. */
  async pull(plan: TopicPlan, options: PullOptions, onMessage: OnMessage): Promise<ConsumeHandle> {
    return this.readers(1, () => ({
      group: plan.groups[0],
      consumer: 'bench',
      topics: plan.topics,
      count: options.batch,
      blockMs: options.waitMs,
      onEntry: (c) => onMessage(0, c),
    }));
  }

  /** `count` group readers, each on a connection of its own, until closed. */
  private readers(count: number, reader: (i: number) => Omit<GroupReader, 'connection' | 'label' | 'isOpen'>): ConsumeHandle {
    let open = true;
    const connections = Array.from({ length: count }, () => this.connect());
    const loops = connections.map((connection, i) => readGroup({ ...reader(i), connection, label: this.label, isOpen: () => open }));
    return {
      close: async () => {
        open = false;
        await Promise.all(loops);
        for (const c of connections) c.disconnect();
      },
    };
  }

  async drop(plan: TopicPlan): Promise<void> {
    if (plan.topics.length) await this.client!.del(...plan.topics);
  }

  readonly restart = {
    how: 'SIGTERM (Redis writes and fsyncs the AOF, then exits), then the same `redis-server` command, which replays the AOF before it answers',
    fresh: async () => {
      await this.stop();
      if (this.dir) rmSync(this.dir, { recursive: true, force: true });
      await this.start();
    },
    restartAndConsume: async (plan: TopicPlan, onMessage: OnMessage): Promise<RestartResult> => {
      this.client?.disconnect();
      await this.server!.stop();
      const restartAt = performance.now();
      await this.launch();
      this.client = this.connect();
      const readyAt = performance.now();
      return { restartAt, readyAt, handle: await this.consume(plan, onMessage) };
    },
  };
}
