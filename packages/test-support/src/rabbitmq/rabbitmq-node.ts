import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from '../free-port';
import { makeTempDir, removeTempDir } from '../temp-dir';
import { waitFor } from '../wait-for';
import { answersAmqp } from './amqp-probe';
import { killGroup, trackGroup, untrackGroup } from './process-reaper';
import { RabbitMqTool, rabbitMqSbin, runRabbitMqCli } from './rabbitmq-cli';
import { RabbitMqTestNodeError } from './rabbitmq-test-node.error';

/** A fresh node boots in ~3 s alone here; three at once on two busy cores take several times that. */
export const DEFAULT_RABBITMQ_START_TIMEOUT_MS = 90_000;
/** A graceful stop (SIGTERM: RabbitMQ closes connections and syncs queues) before it is killed instead. */
export const DEFAULT_RABBITMQ_STOP_TIMEOUT_MS = 30_000;
/** Fresh ports are drawn again when another process took one between `freePort()` and the node's listen. */
const PORT_ATTEMPTS = 3;
/** How long the start script may take to reap its killed VM and exit, before its whole group is killed. */
const KILL_REAP_MS = 5_000;
/** What a failure shows of the node's own log (stdout: `RABBITMQ_LOGS=-`). */
const OUTPUT_LIMIT = 64 * 1024;

export interface RabbitMqNodeOptions {
  /** The Erlang node name; default `mmmq-<random>@localhost`. */
  name?: string;
  /** Holds its data, logs, config and HOME (with the cookie); default a fresh temp dir that `close()` removes. */
  dir?: string;
  /** The Erlang cookie; nodes of one cluster share it. Default random. */
  cookie?: string;
  startTimeoutMs?: number;
}

/**
 * A RabbitMQ node of our own on this machine, never the shared one on 5672: its own node name, AMQP and
 * distribution ports (free ones), data, log and config under its own directory, no plugins. It shares the
 * machine's epmd. Used by the cluster tier and by tests that restart a broker.
 */
export class RabbitMqNode {
  readonly name: string;
  private child?: ChildProcess;
  private exited?: Promise<void>;
  private output = '';
  private beamPid?: number;
  private startedOnce = false;
  private closed = false;

  private constructor(
    readonly dir: string,
    private readonly ownsDir: boolean,
    name: string,
    private readonly cookie: string,
    private readonly startTimeoutMs: number,
    private ports: { amqp: number; dist: number },
  ) {
    this.name = name;
  }

  /** A node ready to start (its directory and config written), not started. */
  static async create(options: RabbitMqNodeOptions = {}): Promise<RabbitMqNode> {
    const dir = options.dir ?? (await makeTempDir('mmmq-rabbitmq-'));
    const name = options.name ?? `mmmq-${randomBytes(4).toString('hex')}@localhost`;
    const cookie = options.cookie ?? randomBytes(16).toString('hex').toUpperCase();
    const node = new RabbitMqNode(dir, !options.dir, name, cookie, options.startTimeoutMs ?? DEFAULT_RABBITMQ_START_TIMEOUT_MS, {
      amqp: await freePort(),
      dist: await freePort(),
    });
    await node.writeFiles();
    return node;
  }

  /** A started node, answering AMQP. */
  static async start(options: RabbitMqNodeOptions = {}): Promise<RabbitMqNode> {
    const node = await RabbitMqNode.create(options);
    try {
      await node.start();
    } catch (error) {
      await node.close();
      throw error;
    }
    return node;
  }

  get amqpPort(): number {
    return this.ports.amqp;
  }

  get distPort(): number {
    return this.ports.dist;
  }

  /** `amqp://guest:guest@127.0.0.1:<port>` (guest may log in over loopback). */
  get amqpUrl(): string {
    return `amqp://guest:guest@127.0.0.1:${this.ports.amqp}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** The Erlang VM's pid (beam.smp), from the node's pid file; undefined while stopped. */
  get pid(): number | undefined {
    return this.beamPid;
  }

  /** The node's log so far (its last 64 KiB), for failure messages. */
  log(): string {
    return this.output;
  }

  /** Starts the node (same name, ports and data as before after a stop or kill); resolves once it answers AMQP. */
  async start(): Promise<void> {
    if (this.closed) throw new RabbitMqTestNodeError(`RabbitMQ node ${this.name} is closed`);
    if (this.child) return;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.boot();
        this.startedOnce = true;
        return;
      } catch (error) {
        await this.kill();
        // A port taken meanwhile is retried on new ports, but only on a node that never ran: a cluster member's
        // peers and clients know its ports.
        if (this.startedOnce || attempt >= PORT_ATTEMPTS || !this.output.includes('eaddrinuse')) throw error;
        this.ports = { amqp: await freePort(), dist: await freePort() };
      }
    }
  }

  /** Graceful stop (SIGTERM, as `rabbitmqctl stop`), data kept; killed if it takes longer than the timeout. */
  async stop(timeoutMs = DEFAULT_RABBITMQ_STOP_TIMEOUT_MS): Promise<void> {
    const { child, exited } = this;
    if (!child || !exited) return;
    child.kill('SIGTERM');
    if (!(await settlesWithin(exited, timeoutMs))) await this.kill();
  }

  /** `kill -9` of the Erlang VM: a crash, no goodbye to peers or clients. Data kept. */
  async kill(): Promise<void> {
    const { child, exited, beamPid } = this;
    if (!child || !exited) return;
    // The VM alone first, so that its start script (its parent) reaps it and exits; the whole group only if that
    // does not happen (a node still booting, whose pid is not known yet).
    if (beamPid && signal(beamPid, 'SIGKILL') && (await settlesWithin(exited, KILL_REAP_MS))) return;
    if (child.pid) killGroup(child.pid);
    await exited;
  }

  /** A graceful stop then a start, on the same ports and data. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Runs a RabbitMQ CLI tool against this node (`rabbitmqctl -n <name> …`); resolves its stdout. */
  cli(args: readonly string[], tool: RabbitMqTool = 'rabbitmqctl'): Promise<string> {
    return runRabbitMqCli(tool, this.name, args, this.env());
  }

  /** Kills the node if it runs and removes its directory (when it made it); idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.kill();
    if (this.ownsDir) await removeTempDir(this.dir);
  }

  private async boot(): Promise<void> {
    await rm(join(this.dir, 'rabbitmq.pid'), { force: true });
    this.output = '';
    // Its own process group, so that a kill reaches the start script and the VM together.
    const child = spawn(join(rabbitMqSbin(), 'rabbitmq-server'), [], {
      env: this.env(),
      cwd: this.dir,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const pgid = child.pid;
    if (pgid) trackGroup(pgid);
    let gone = false;
    this.exited = new Promise<void>((resolve) =>
      child.once('close', () => {
        gone = true;
        if (pgid) untrackGroup(pgid);
        if (this.child === child) {
          this.child = undefined;
          this.beamPid = undefined;
        }
        resolve();
      }),
    );
    const record = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-OUTPUT_LIMIT);
    };
    child.stdout?.on('data', record);
    child.stderr?.on('data', record);
    await waitFor(
      async () => {
        if (gone) throw new RabbitMqTestNodeError(`RabbitMQ node ${this.name} exited while starting:\n${this.output}`);
        return answersAmqp(this.ports.amqp);
      },
      {
        deadlineMs: this.startTimeoutMs,
        pollMs: 100,
        message: () => `RabbitMQ node ${this.name} to answer AMQP on ${this.ports.amqp}:\n${this.output}`,
      },
    );
    this.beamPid = Number((await readFile(join(this.dir, 'rabbitmq.pid'), 'utf8')).trim());
  }

  private async writeFiles(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    // Mode 600, or Erlang refuses the cookie.
    await writeFile(join(this.dir, '.erlang.cookie'), this.cookie, { mode: 0o600 });
    await writeFile(join(this.dir, 'enabled_plugins'), '[].\n');
    // Our own (empty) env file and config, so the machine's /etc/rabbitmq (the shared node's name and port) is not read.
    await writeFile(join(this.dir, 'rabbitmq-env.conf'), '');
    await writeFile(join(this.dir, 'rabbitmq.conf'), '# A node of MMMQ’s tests (packages/test-support/src/rabbitmq).\n');
  }

  private env(): NodeJS.ProcessEnv {
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(RABBITMQ_|ERL_)/.test(key)));
    return {
      ...inherited,
      // The CLI and the node read the cookie from $HOME/.erlang.cookie.
      HOME: this.dir,
      RABBITMQ_CONF_ENV_FILE: join(this.dir, 'rabbitmq-env.conf'),
      RABBITMQ_CONFIG_FILE: join(this.dir, 'rabbitmq.conf'),
      RABBITMQ_ENABLED_PLUGINS_FILE: join(this.dir, 'enabled_plugins'),
      RABBITMQ_NODENAME: this.name,
      RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
      RABBITMQ_NODE_PORT: String(this.ports.amqp),
      RABBITMQ_DIST_PORT: String(this.ports.dist),
      RABBITMQ_MNESIA_BASE: join(this.dir, 'mnesia'),
      RABBITMQ_LOG_BASE: join(this.dir, 'log'),
      RABBITMQ_LOGS: '-',
      RABBITMQ_PID_FILE: join(this.dir, 'rabbitmq.pid'),
      // Distribution and epmd on loopback only, as the shared node has them.
      ERL_EPMD_ADDRESS: '127.0.0.1',
      RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '-kernel inet_dist_use_interface {127,0,0,1}',
    };
  }
}

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
