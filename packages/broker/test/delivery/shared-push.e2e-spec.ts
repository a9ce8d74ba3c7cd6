import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BrokerApp, FAST_BACKOFF, startBroker, waitFor } from '@mmmq/test-support';

interface Delivery {
  offset: number;
  deliveryCount: number;
}

interface Part {
  consumerId: string;
  topic: string;
  messages: Delivery[];
}

interface Push {
  path: string;
  /** The windows it carried: one for a batched push, any number for a shared one. */
  parts: Part[];
}

const CONSUMERS = ['billing', 'audit', 'mail'];
const topicOf = (consumerId: string) => `orders.${consumerId}`;
const ack = (part: number, index: number) => `${JSON.stringify({ part, index, acknowledgement: 'ACK' })}\n`;

/**
 * A consumer by hand: batched pushes are answered with whole JSON, with `mmmq-shared-push: 1` when `sharing`;
 * shared pushes go to `onShared`, which by default settles every message with a line.
 */
class HostConsumer {
  readonly pushes: Push[] = [];
  sharing = true;
  onShared: (push: Push, response: http.ServerResponse) => void = (push, response) => {
    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    response.end(push.parts.map((part, p) => part.messages.map((_, i) => ack(p, i)).join('')).join(''));
  };
  private readonly server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (this.sharing) response.setHeader('mmmq-shared-push', '1');
      if (request.url === '/mmmq/messages/shared') {
        const push = { path: request.url, parts: body.parts as Part[] };
        this.pushes.push(push);
        return this.onShared(push, response);
      }
      const consumerId = request.headers['mmmq-consumer-id'] as string;
      this.pushes.push({ path: request.url!, parts: [{ consumerId, topic: topicOf(consumerId), messages: body.messages }] });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ acknowledgements: body.messages.map(() => ({ acknowledgement: 'ACK' })) }));
    });
  });

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Pushes to `path` after the first `from`. */
  on(path: string, from = 0): Push[] {
    return this.pushes.slice(from).filter((push) => push.path === path);
  }

  start(): Promise<void> {
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('shared pushes: one push per consumer host', () => {
  let broker: BrokerApp;
  let consumer: HostConsumer;

  beforeEach(async () => {
    consumer = new HostConsumer();
    await consumer.start();
    broker = await startBroker({ delivery: FAST_BACKOFF });
    for (const consumerId of CONSUMERS) await broker.addDispatcher(consumerId, consumer.url, topicOf(consumerId), { batchSize: 100 });
  });
  afterEach(async () => {
    await broker.close();
    await consumer.stop();
  });

  /** `perTopic` messages on each consumer's topic, in one commit. */
  async function publishToAll(perTopic: number): Promise<void> {
    const messages = CONSUMERS.flatMap((consumerId) =>
      Array.from({ length: perTopic }, (_, n) => ({ topic: topicOf(consumerId), content: { n } })),
    );
    expect((await broker.request('POST', '/mmmq/messages/batch', { messages })).status).toBe(200);
  }

  async function allCaughtUp(): Promise<void> {
    for (const consumerId of CONSUMERS) await broker.caughtUp(consumerId, topicOf(consumerId));
  }

  /** The consumer's first answer tells the broker it takes shared pushes. */
  async function learnSharing(): Promise<number> {
    await broker.publish(topicOf(CONSUMERS[0]), { n: -1 });
    await broker.caughtUp(CONSUMERS[0], topicOf(CONSUMERS[0]));
    return consumer.pushes.length;
  }

  it('never sends a shared push to a consumer that does not say it takes them', async () => {
    consumer.sharing = false;
    await publishToAll(3);
    await allCaughtUp();
    await publishToAll(3);
    await allCaughtUp();
    expect(consumer.on('/mmmq/messages/shared')).toEqual([]);
    expect(consumer.on('/mmmq/messages/batch').length).toBeGreaterThanOrEqual(CONSUMERS.length * 2);
  });

  it('sends the windows of every subscription of the host together once it said so, each settled by its lines', async () => {
    const from = await learnSharing();
    let rounds = 0;
    await waitFor(
      async () => {
        rounds++;
        await publishToAll(3);
        await allCaughtUp();
        return consumer.on('/mmmq/messages/shared', from).some((push) => push.parts.length > 1);
      },
      { message: 'a shared push of several parts' },
    );
    expect(consumer.on('/mmmq/messages/batch', from)).toEqual([]);
    const shared = consumer.on('/mmmq/messages/shared', from);
    expect(shared.length).toBeLessThan(CONSUMERS.length * rounds);
    const windows = shared.flatMap((push) => push.parts);
    expect(windows).toHaveLength(CONSUMERS.length * rounds);
    for (const part of windows) {
      expect(part.topic).toBe(topicOf(part.consumerId));
      expect(part.messages.map((message) => message.deliveryCount)).toEqual([1, 1, 1]);
    }
    for (const consumerId of CONSUMERS) expect((await broker.subscription(consumerId, topicOf(consumerId))).stats.redelivered).toBe(0);
  });

  it('gives back only the part the consumer refused with 503, uncounted, and settles the others', async () => {
    const from = await learnSharing();
    let refused = false;
    consumer.onShared = (push, response) => {
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const lines = push.parts.map((part, p) => {
        if (part.consumerId === 'audit' && !refused) {
          refused = true;
          return `${JSON.stringify({ part: p, status: 503, message: 'not now' })}\n`;
        }
        return part.messages.map((_, i) => ack(p, i)).join('');
      });
      response.end(lines.join(''));
    };
    await publishToAll(2);
    await allCaughtUp();
    expect(refused).toBe(true);
    const audits = consumer.on('/mmmq/messages/shared', from).flatMap((push) => push.parts.filter((part) => part.consumerId === 'audit'));
    expect(audits.map((part) => part.messages.map((message) => message.deliveryCount))).toEqual([
      [1, 1],
      [1, 1],
    ]);
    for (const consumerId of ['billing', 'mail']) {
      const subscription = await broker.subscription(consumerId, topicOf(consumerId));
      expect(subscription.stats.redelivered).toBe(0);
    }
  });

  it('sends each part again alone after a 413 of several parts, as no delivery', async () => {
    const from = await learnSharing();
    consumer.onShared = (push, response) => {
      if (push.parts.length === 1) return new HostConsumer().onShared(push, response);
      response.writeHead(413, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ acknowledgement: 'NACK', message: 'too large' }));
    };
    // Windows share a push when they are ready in the same turn of the broker's event loop: usually the first round.
    await waitFor(
      async () => {
        await publishToAll(2);
        await allCaughtUp();
        return consumer.on('/mmmq/messages/shared', from).some((push) => push.parts.length > 1);
      },
      { message: 'a shared push of several parts' },
    );
    const shared = consumer.on('/mmmq/messages/shared', from);
    const refused = shared.findIndex((push) => push.parts.length > 1);
    const alone = shared.slice(refused + 1, refused + 1 + shared[refused].parts.length).map((push) => push.parts);
    expect(alone.map((parts) => parts.length)).toEqual(shared[refused].parts.map(() => 1));
    expect(alone.map(([part]) => part.consumerId).sort()).toEqual(shared[refused].parts.map((part) => part.consumerId).sort());
    expect(shared.every((push) => push.parts.every((part) => part.messages.every((message) => message.deliveryCount === 1)))).toBe(true);
    for (const consumerId of CONSUMERS) {
      const subscription = await broker.subscription(consumerId, topicOf(consumerId));
      expect(subscription.members[0]).toMatchObject({ failedPushes: 0 });
      expect(subscription.members[0].batchLimit).toBeUndefined();
    }
  });

  it('pushes a subscription whose part the consumer refused with 404 on its own from then on', async () => {
    const from = await learnSharing();
    consumer.onShared = (push, response) => {
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const lines = push.parts.map((part, p) =>
        part.consumerId === 'mail'
          ? `${JSON.stringify({ part: p, status: 404, message: 'not a listener here' })}\n`
          : part.messages.map((_, i) => ack(p, i)).join(''),
      );
      response.end(lines.join(''));
    };
    await publishToAll(2);
    await allCaughtUp();
    await publishToAll(2);
    await allCaughtUp();
    const batched = consumer.on('/mmmq/messages/batch', from).map((push) => push.parts[0]);
    expect(batched.length).toBeGreaterThan(0);
    expect(batched.every((part) => part.consumerId === 'mail')).toBe(true);
    expect(batched.flatMap((part) => part.messages.map((message) => message.deliveryCount)).every((count) => count === 1)).toBe(true);
    const sharedLater = consumer.on('/mmmq/messages/shared', consumer.pushes.length - 1);
    expect(sharedLater.flatMap((push) => push.parts).some((part) => part.consumerId === 'mail')).toBe(false);
    await waitFor(async () => (await broker.subscription('mail', topicOf('mail'))).position === 4, { message: 'mail settled' });
  });
});
