import { RabbitMqNode, answersAmqp, waitFor } from '@mmmq/test-support';
import { connect } from 'amqplib';
import { existsSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';

/** A persistent message published with a confirm to a durable queue of `node` (declared of `type`). */
async function publishConfirmed(node: RabbitMqNode, queue: string, body: string, type: 'classic' | 'quorum'): Promise<void> {
  const connection = await connect(node.amqpUrl);
  try {
    const channel = await connection.createConfirmChannel();
    await channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': type } });
    channel.sendToQueue(queue, Buffer.from(body), { persistent: true });
    await channel.waitForConfirms();
  } finally {
    await connection.close();
  }
}

/**
 * The next message of `queue`, taken with basic.get. Right after a start the node answers AMQP before its quorum
 * queues have elected their (single) leader, and a get then fails (541, timeout): asked again until the deadline.
 */
async function getOne(node: RabbitMqNode, queue: string): Promise<string | undefined> {
  let body: string | undefined;
  let lastError: unknown;
  await waitFor(
    async () => {
      const connection = await connect(node.amqpUrl);
      connection.on('error', (error: unknown) => (lastError = error));
      try {
        const channel = await connection.createChannel();
        channel.on('error', (error: unknown) => (lastError = error));
        // A get the queue never answers (no leader) ends with the connection, closed after a while.
        const timer = setTimeout(() => void connection.close().catch(() => undefined), 10_000);
        const message = await channel.get(queue, { noAck: true }).finally(() => clearTimeout(timer));
        body = message ? message.content.toString() : undefined;
        return true;
      } catch (error) {
        lastError = error;
        return false;
      } finally {
        await connection.close().catch(() => undefined);
      }
    },
    {
      deadlineMs: 60_000,
      pollMs: 500,
      message: () => `a basic.get on ${queue} to answer (last error: ${String(lastError)}); node log:\n${node.log().slice(-4000)}`,
    },
  );
  return body;
}

/** Whether `pid` runs (a zombie, dead but not yet reaped, does not). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('A RabbitMQ node of our own', () => {
  let node: RabbitMqNode;

  beforeAll(async () => {
    const started = Date.now();
    node = await RabbitMqNode.start();
    console.log(`RabbitMQ node ${node.name} answered AMQP on ${node.amqpPort} after ${Date.now() - started} ms`);
  });

  afterAll(() => node?.close());

  it('answers AMQP on its own port, never the shared 5672, with a named Erlang VM pid', async () => {
    expect(node.amqpPort).not.toBe(5672);
    expect(await answersAmqp(node.amqpPort)).toBe(true);
    expect(node.pid).toEqual(expect.any(Number));
    expect(alive(node.pid!)).toBe(true);
    expect(await node.cli(['eval', 'os:getpid().'])).toContain(String(node.pid));
  });

  // A classic queue: on RabbitMQ 3.10, a quorum queue declared less than a few minutes before a kill -9 of its only
  // node comes back empty and without a leader (Ra's names.dets was not saved yet; docs/scaling.md).
  it('keeps a confirmed message across kill -9 and a start on the same port and data', async () => {
    const queue = `node-crash-${randomUUID()}`;
    await publishConfirmed(node, queue, 'survives a crash', 'classic');
    const killedPid = node.pid!;

    const killedAt = Date.now();
    await node.kill();
    expect(alive(killedPid)).toBe(false);
    expect(node.running).toBe(false);
    expect(await answersAmqp(node.amqpPort)).toBe(false);

    await node.start();
    console.log(`RabbitMQ node restarted after kill -9 in ${Date.now() - killedAt} ms`);
    expect(node.pid).not.toBe(killedPid);
    expect(await getOne(node, queue)).toBe('survives a crash');
  });

  it('stops gracefully and restarts with its data', async () => {
    const queue = `node-restart-${randomUUID()}`;
    await publishConfirmed(node, queue, 'survives a restart', 'quorum');
    const before = node.pid!;

    const restartedAt = Date.now();
    await node.restart();
    console.log(`RabbitMQ node stopped gracefully and restarted in ${Date.now() - restartedAt} ms`);
    expect(alive(before)).toBe(false);
    expect(await getOne(node, queue)).toBe('survives a restart');
  });

  it('leaves no process or directory behind once closed, and closing again is harmless', async () => {
    const extra = await RabbitMqNode.start();
    const { pid, dir } = extra;
    await extra.close();
    await extra.close();
    expect(alive(pid!)).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });
});
