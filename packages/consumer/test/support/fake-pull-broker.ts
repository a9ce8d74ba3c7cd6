import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A message the fake holds for one consumer id. */
interface Held {
  id: string;
  topic: string;
  content: unknown;
  offset: number;
  deliveryCount: number;
  lease?: string;
  member?: string;
}

/** One request the fake received: `POST /mmmq/consumers/{consumerId}/{action}` or a dispatcher call. */
export interface Call {
  method: string;
  path: string;
  body: any;
  authorization: string | undefined;
}

/**
 * A stand-in for the broker's pull API (docs/http-api.md § Pull API) for unit tests: one queue per consumer id, leases
 * `{topic}:{offset}:{deliveryCount}`, long polls, and every request recorded. No durability, no expiry.
 */
export class FakePullBroker {
  readonly calls: Call[] = [];
  readonly dispatchers = new Map<string, any>();
  /** Answers the next N pull requests with this status instead. */
  failures: Array<{ status: number }> = [];
  private readonly queues = new Map<string, Held[]>();
  private readonly waiters = new Set<() => void>();
  private readonly answered = new Set<string>();
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.serve(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const wake of this.waiters) wake();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  publish(consumerId: string, topic: string, contents: unknown[]): void {
    const queue = this.queue(consumerId);
    for (const content of contents) {
      const offset = queue.length === 0 ? 0 : Math.max(...queue.map((m) => m.offset)) + 1;
      queue.push({ id: `${topic}-${offset}`, topic, content, offset, deliveryCount: 0 });
    }
    for (const wake of this.waiters) wake();
  }

  /** Messages not settled yet (leased or not). */
  unsettled(consumerId: string): number {
    return this.queue(consumerId).length;
  }

  /** Leases of the ack requests answered so far (an ack is durable at the broker once answered). */
  answeredAcks(): Set<string> {
    return this.answered;
  }

  callsTo(action: string): Call[] {
    return this.calls.filter((call) => call.path.endsWith(`/${action}`));
  }

  private queue(consumerId: string): Held[] {
    let queue = this.queues.get(consumerId);
    if (queue === undefined) this.queues.set(consumerId, (queue = []));
    return queue;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of req) text += chunk;
    const call: Call = {
      method: req.method ?? '',
      path: req.url ?? '',
      body: text ? JSON.parse(text) : undefined,
      authorization: req.headers.authorization,
    };
    this.calls.push(call);
    const reply = (status: number, body?: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    const dispatcher = /^\/mmmq\/dispatchers(?:\/([^/]+))?$/.exec(call.path);
    if (dispatcher) return this.dispatcher(call, decodeURIComponent(dispatcher[1] ?? ''), reply);
    const pull = /^\/mmmq\/consumers\/([^/]+)\/(\w+)$/.exec(call.path);
    if (!pull) return reply(404, { message: 'no route' });
    const failure = this.failures.shift();
    if (failure) return reply(failure.status, { message: 'injected failure' });
    const [, consumerId, action] = pull;
    const queue = this.queue(decodeURIComponent(consumerId));
    const leases = new Set<string>(call.body?.leases ?? []);
    const leased = queue.filter((m) => m.lease !== undefined && leases.has(m.lease));
    const lost = [...leases].filter((lease) => !leased.some((m) => m.lease === lease));
    const drop = () => leased.forEach((m) => queue.splice(queue.indexOf(m), 1));
    const release = (held: Held[]) => held.forEach((m) => Object.assign(m, { lease: undefined, member: undefined }));
    switch (action) {
      case 'fetch':
        return reply(200, { messages: await this.fetch(queue, call.body) });
      case 'ack':
      case 'terminate':
        drop();
        reply(200, { settled: leased.length, lost });
        if (action === 'ack') for (const lease of leases) this.answered.add(lease);
        return;
      case 'nack':
        release(leased);
        for (const wake of this.waiters) wake();
        return reply(200, { settled: leased.length, lost });
      case 'extend':
        return reply(200, { extended: leased.length, lost });
      case 'recover': {
        const held = queue.filter((m) => m.member === call.body.member);
        release(held);
        return reply(200, { released: held.length });
      }
      default:
        return reply(404, { message: `no action ${action}` });
    }
  }

  private async fetch(queue: Held[], body: { max?: number; waitMs?: number; member?: string; autoAck?: boolean }): Promise<unknown[]> {
    const deadline = Date.now() + (body.waitMs ?? 0);
    while (!queue.some((m) => m.lease === undefined) && Date.now() < deadline && this.server.listening) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.max(0, deadline - Date.now()));
        this.waiters.add(wake);
      });
    }
    const ready = queue.filter((m) => m.lease === undefined).slice(0, body.max ?? 1);
    return ready.map((m) => {
      m.deliveryCount++;
      const message = {
        id: m.id,
        topic: m.topic,
        content: m.content,
        headers: {},
        offset: m.offset,
        deliveryCount: m.deliveryCount,
        redelivered: m.deliveryCount > 1,
        publishedAt: null,
      };
      if (body.autoAck) {
        queue.splice(queue.indexOf(m), 1);
        return message;
      }
      m.lease = `${m.topic}:${m.offset}:${m.deliveryCount}`;
      m.member = body.member;
      return { ...message, lease: m.lease };
    });
  }

  private dispatcher(call: Call, consumerId: string, reply: (status: number, body?: unknown) => void): void {
    if (call.method === 'GET') {
      const existing = this.dispatchers.get(consumerId);
      return existing ? reply(200, existing) : reply(404, { message: 'unknown' });
    }
    const id = call.method === 'POST' ? call.body.consumerId : consumerId;
    const created = !this.dispatchers.has(id);
    this.dispatchers.set(id, { ...call.body, consumerId: id });
    reply(call.method === 'POST' && created ? 201 : 200, this.dispatchers.get(id));
  }
}
