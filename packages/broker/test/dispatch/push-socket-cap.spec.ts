import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Host } from '@mmmq/core';
import { PushSender } from '../../src/dispatch/push-sender';
import { waitUntil } from '../delivery/pull.fixture';

const ACK = '{"acknowledgement":"ACK"}';

/** A consumer that holds each push unanswered until `release`, and counts the connections made to it. */
class HoldingConsumer {
  readonly held: http.ServerResponse[] = [];
  connections = 0;
  private releasing = false;
  private readonly server = http.createServer((request, response) => {
    request.resume().on('end', () => {
      if (this.releasing) response.writeHead(200, { 'content-type': 'application/json' }).end(ACK);
      else this.held.push(response);
    });
  });

  async listen(): Promise<Host> {
    this.server.keepAliveTimeout = 60_000;
    this.server.on('connection', () => this.connections++);
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return Host.parse(`http://127.0.0.1:${(this.server.address() as AddressInfo).port}`);
  }

  /** Answers the pushes held, and every later one at once. */
  release(): void {
    this.releasing = true;
    for (const response of this.held.splice(0)) response.writeHead(200, { 'content-type': 'application/json' }).end(ACK);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** The pushes the agent keeps waiting for a socket (`agent.requests`, documented by Node). */
function waiting(sender: PushSender): number {
  return Object.values(agentOf(sender).requests).reduce((sum, queue) => sum + (queue?.length ?? 0), 0);
}

function agentOf(sender: PushSender): http.Agent {
  return (sender as unknown as { agents: { HTTP: http.Agent } }).agents.HTTP;
}

describe('PushSender connections', () => {
  const consumers: HoldingConsumer[] = [];
  let sender: PushSender | undefined;

  afterEach(async () => {
    sender?.close();
    await Promise.all(consumers.splice(0).map((consumer) => consumer.close()));
  });

  async function consumer(): Promise<{ consumer: HoldingConsumer; host: Host }> {
    const made = new HoldingConsumer();
    consumers.push(made);
    return { consumer: made, host: await made.listen() };
  }

  const push = (host: Host, n: number) =>
    sender!.send({ consumerId: 'c', host }, { body: Buffer.from(`{"n":${n}}`), id: `p${n}` }, new AbortController().signal);

  it('opens at most maxSocketsPerHost to one host: the other pushes wait for one and go out on it', async () => {
    const { consumer: a, host } = await consumer();
    sender = new PushSender(10_000, undefined, { maxSocketsPerHost: 2, maxSockets: 10 });
    const pushes = Array.from({ length: 6 }, (_, n) => push(host, n));

    await waitUntil(() => a.held.length === 2 && waiting(sender!) === 4, '2 pushes held by the consumer, 4 waiting for a socket');
    expect(a.connections).toBe(2);
    a.release();
    expect(await Promise.all(pushes)).toEqual(Array.from({ length: 6 }, () => ({ acknowledgement: 'ACK' })));
    expect(a.connections).toBe(2);
  });

  it('opens at most maxSockets to all hosts, and closes an idle connection for a push to another host that waits', async () => {
    const { consumer: a, host: hostA } = await consumer();
    const { consumer: b, host: hostB } = await consumer();
    const { consumer: c, host: hostC } = await consumer();
    sender = new PushSender(10_000, undefined, { maxSocketsPerHost: 2, maxSockets: 3 });
    const first = [push(hostA, 0), push(hostA, 1), push(hostB, 2), push(hostB, 3)];

    await waitUntil(() => a.held.length + b.held.length === 3 && waiting(sender!) === 1, '3 pushes held, 1 waiting for a socket');
    expect(a.connections + b.connections).toBe(3);
    a.release();
    b.release();
    await Promise.all(first);
    // Every socket of the cap is now idle, kept alive for a and b: c's push takes the place of one of them at once,
    // not once one of them times out idle (Node's agent alone would wait for that).
    await waitUntil(() => waiting(sender!) === 0, 'no push waiting');
    let idleTimeouts = 0;
    for (const idle of Object.values(agentOf(sender).freeSockets))
      for (const socket of idle ?? []) socket.on('timeout', () => idleTimeouts++);
    c.release();
    expect(await push(hostC, 4)).toEqual({ acknowledgement: 'ACK' });
    expect(idleTimeouts).toBe(0);
    expect(a.connections + b.connections + c.connections).toBe(4);
  });
});
