import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { makeTempDir, removeTempDir } from '../temp-dir';
import { RabbitMqNode } from './rabbitmq-node';
import { RabbitMqTestNodeError } from './rabbitmq-test-node.error';

export interface RabbitMqClusterOptions {
  /** Per node; see {@link RabbitMqNodeOptions.startTimeoutMs}. */
  startTimeoutMs?: number;
}

/** A row of `rabbitmq-queues quorum_status --formatter json`. */
interface QuorumMemberStatus {
  'Node Name': string;
  'Raft State': string;
  Term: number | string;
}

/**
 * A RabbitMQ cluster of `size` {@link RabbitMqNode}s on this machine, under one temp dir with one cookie:
 * the nodes boot at once, then each joins the first (`stop_app`, `join_cluster`, `start_app`).
 */
export class RabbitMqCluster {
  private stopped = false;

  private constructor(
    readonly nodes: readonly RabbitMqNode[],
    private readonly dir: string,
  ) {}

  static async start(size = 3, options: RabbitMqClusterOptions = {}): Promise<RabbitMqCluster> {
    if (!Number.isInteger(size) || size < 1) throw new RabbitMqTestNodeError(`A cluster has 1 node or more, not ${size}`);
    const dir = await makeTempDir('mmmq-rabbitmq-cluster-');
    const cookie = randomBytes(16).toString('hex').toUpperCase();
    const run = randomBytes(3).toString('hex');
    const nodes: RabbitMqNode[] = [];
    const cluster = new RabbitMqCluster(nodes, dir);
    try {
      for (let i = 1; i <= size; i++) {
        nodes.push(
          await RabbitMqNode.create({
            name: `mmmq-c${i}-${run}@localhost`,
            dir: join(dir, `node${i}`),
            cookie,
            startTimeoutMs: options.startTimeoutMs,
          }),
        );
      }
      const started = await Promise.allSettled(nodes.map((node) => node.start()));
      const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
      if (failed) throw failed.reason;
      const [first, ...others] = nodes;
      // One at a time: Mnesia joins are not meant to race.
      for (const node of others) {
        await node.cli(['stop_app']);
        await node.cli(['join_cluster', first.name]);
        await node.cli(['start_app']);
      }
      await cluster.expectRunning(nodes);
      return cluster;
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  /** Each node's `amqp://…` URL, in node order. */
  get amqpUrls(): string[] {
    return this.nodes.map((node) => node.amqpUrl);
  }

  /** The nodes running now (not stopped or killed). */
  get runningNodes(): RabbitMqNode[] {
    return this.nodes.filter((node) => node.running);
  }

  /**
   * The node whose member of quorum queue `queue` is the Raft leader, as a running node reports it
   * (`rabbitmq-queues quorum_status`); undefined while there is none (an election in progress).
   */
  async leaderOf(queue: string, vhost = '/'): Promise<RabbitMqNode | undefined> {
    const asked = this.runningNodes[0];
    if (!asked) throw new RabbitMqTestNodeError('No node of the cluster is running');
    const members = JSON.parse(
      await asked.cli(['quorum_status', queue, '--vhost', vhost, '--formatter', 'json', '--quiet'], 'rabbitmq-queues'),
    ) as QuorumMemberStatus[];
    // Right after an election a deposed leader may not know it yet: the highest term wins.
    const leaders = members.filter((member) => member['Raft State'] === 'leader').sort((a, b) => Number(b.Term) - Number(a.Term));
    return this.nodes.find((node) => node.name === leaders[0]?.['Node Name']);
  }

  /** Kills every node and removes every directory, whatever state the cluster is in; idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    // Killed rather than stopped: the data is thrown away, and a graceful stop of the last nodes waits on peers.
    await Promise.allSettled(this.nodes.map((node) => node.close()));
    await removeTempDir(this.dir);
  }

  /** Fails unless the first node reports every one of `nodes` as a running member. */
  private async expectRunning(nodes: readonly RabbitMqNode[]): Promise<void> {
    const status = JSON.parse(await nodes[0].cli(['cluster_status', '--formatter', 'json', '--quiet'])) as { running_nodes: string[] };
    const missing = nodes.filter((node) => !status.running_nodes.includes(node.name));
    if (missing.length) {
      throw new RabbitMqTestNodeError(`Cluster formed without ${missing.map((node) => node.name).join(', ')}: ${JSON.stringify(status)}`);
    }
  }
}
