import http from 'node:http';
import { AddressInfo } from 'node:net';
import { DeadLetterHeaders } from '@mmmq/core';
import { BrokerApp, range, startBroker, waitFor } from '@mmmq/test-support';

interface Delivery {
  offset: number;
  deliveryCount: number;
  redelivered: boolean;
  content: unknown;
}

/**
 * A plain node:http push consumer that refuses pushes as too large (413, after reading them whole, as
 * @mmmq/consumer does) when `tooLarge` says so, and ACKs the others.
 */
class PickyConsumer {
  readonly received: Delivery[] = [];
  /** Sizes (in messages) of the pushes it took, and of those it answered 413. */
  readonly taken: number[] = [];
  /** The pushes it took with their `mmmq-push-session` and `mmmq-push-sequence` (dispatchers with `maxInFlight` > 1). */
  readonly ordered: Array<{ session: string; sequence: number; offsets: number[] }> = [];
  readonly refused: number[] = [];
  private readonly server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const batch = request.url?.endsWith('/batch') ?? false;
      const deliveries: Delivery[] = batch ? JSON.parse(raw.toString('utf8')).messages : [JSON.parse(raw.toString('utf8'))];
      if (this.tooLarge(deliveries.length, raw.length)) {
        this.refused.push(deliveries.length);
        return reply(response, 413, { acknowledgement: 'NACK', message: 'request entity too large' });
      }
      this.taken.push(deliveries.length);
      const session = request.headers['mmmq-push-session'];
      if (typeof session === 'string') {
        const sequence = Number(request.headers['mmmq-push-sequence']);
        this.ordered.push({ session, sequence, offsets: deliveries.map((delivery) => delivery.offset) });
      }
      this.received.push(...deliveries);
      const ack = { acknowledgement: 'ACK' };
      reply(response, 200, batch ? { acknowledgements: deliveries.map(() => ack) } : ack);
    });
  });

  constructor(private readonly tooLarge: (messages: number, bytes: number) => boolean) {}

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function reply(response: http.ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

describe('a push the consumer answers with 413 (too large)', () => {
  let broker: BrokerApp;
  let consumer: PickyConsumer;

  afterEach(async () => {
    await broker.close();
    await consumer.stop();
  });

  it('is split until the consumer takes it: a backlog of 500 reaches a consumer taking at most 10 a push, each once, in order, as first deliveries', async () => {
    const messages = 500;
    consumer = new PickyConsumer((count) => count > 10);
    await consumer.start();
    broker = await startBroker();
    const published = await broker.request('POST', '/mmmq/messages/batch', {
      messages: range(messages).map((n) => ({ topic: 'audit.entry', content: { n } })),
    });
    expect(published.status).toBe(200);
    await broker.addDispatcher('auditor', consumer.url, 'audit.*', { batchSize: 500 });

    await waitFor(() => consumer.received.length >= messages, {
      message: () => `${messages} deliveries; got ${consumer.received.length}, refused pushes of ${consumer.refused.join(', ')}`,
    });
    await broker.caughtUp('auditor', 'audit.entry');
    expect(consumer.received.map((delivery) => delivery.offset)).toEqual(range(messages));
    for (const delivery of consumer.received) expect(delivery).toMatchObject({ deliveryCount: 1, redelivered: false });
    // Halved from 500 to a size that works, which is kept: not a 413 per push.
    expect(consumer.refused).toEqual([500, 250, 125, 62, 31, 15]);
    expect(Math.max(...consumer.taken)).toBeLessThanOrEqual(10);
    const subscription = await broker.subscription('auditor', 'audit.entry');
    expect(subscription.stats).toMatchObject({ redelivered: 0, failures: 0, deadLettered: 0 });
    expect(subscription.members[0]).toMatchObject({ failedPushes: 0, batchLimit: 7 });
  });

  it('is split with pushes pipelined (maxInFlight 4): each message once, in offset order by session and sequence', async () => {
    const messages = 500;
    consumer = new PickyConsumer((count) => count > 10);
    await consumer.start();
    broker = await startBroker();
    await broker.request('POST', '/mmmq/messages/batch', {
      messages: range(messages).map((n) => ({ topic: 'audit.entry', content: { n } })),
    });
    await broker.addDispatcher('auditor', consumer.url, 'audit.*', { batchSize: 500, maxInFlight: 4 });

    await waitFor(() => consumer.received.length >= messages, {
      message: () => `${messages} deliveries; got ${consumer.received.length}, refused pushes of ${consumer.refused.join(', ')}`,
    });
    await broker.caughtUp('auditor', 'audit.entry');
    // Sessions start in order (a new one only once the old one's pushes are back); within one, the sequence orders.
    const sessions = [...new Set(consumer.ordered.map((push) => push.session))];
    const inOrder = [...consumer.ordered].sort(
      (a, b) => sessions.indexOf(a.session) - sessions.indexOf(b.session) || a.sequence - b.sequence,
    );
    expect(inOrder.flatMap((push) => push.offsets)).toEqual(range(messages));
    expect(Math.max(...consumer.taken)).toBeLessThanOrEqual(10);
  });

  it('dead-letters a single message the consumer refuses (TOO_LARGE, not a delivery) and delivers the messages after it', async () => {
    const bigContent = 'x'.repeat(3 * 1024 * 1024);
    consumer = new PickyConsumer((_count, bytes) => bytes > 2 * 1024 * 1024);
    await consumer.start();
    broker = await startBroker({ http: { maxBodyBytes: 4 * 1024 * 1024 } });
    await broker.publishAll('scan.uploaded', [{ n: 0 }, bigContent, { n: 2 }, { n: 3 }]);
    await broker.addDispatcher('scanner', consumer.url, 'scan.*');

    await waitFor(async () => (await broker.deadLetters('scanner')).length === 1, { message: 'the TOO_LARGE dead letter' });
    await waitFor(() => consumer.received.length >= 3, { message: () => `3 deliveries; got ${consumer.received.length}` });
    await broker.caughtUp('scanner', 'scan.uploaded');
    expect(consumer.received.map(({ offset, deliveryCount }) => ({ offset, deliveryCount }))).toEqual([
      { offset: 0, deliveryCount: 1 },
      { offset: 2, deliveryCount: 1 },
      { offset: 3, deliveryCount: 1 },
    ]);
    expect(consumer.refused).toEqual([1]);
    const [letter] = await broker.deadLetters('scanner');
    expect(letter.headers).toMatchObject({
      [DeadLetterHeaders.ORIGINAL_TOPIC]: 'scan.uploaded',
      [DeadLetterHeaders.ORIGINAL_OFFSET]: 1,
      [DeadLetterHeaders.REASON]: 'TOO_LARGE',
      // The 413 is not a delivery: nothing reached a handler.
      [DeadLetterHeaders.ATTEMPTS]: 0,
    });
    expect(String(letter.headers[DeadLetterHeaders.LAST_ERROR])).toContain('HTTP 413: request entity too large');
    const history = JSON.parse(String(letter.headers[DeadLetterHeaders.DELIVERIES]));
    expect(history.map((attempt: { outcome: string }) => attempt.outcome)).toEqual(['TOO_LARGE']);
    expect((await broker.subscription('scanner', 'scan.uploaded')).stats).toMatchObject({ deadLettered: 1, redelivered: 0, failures: 0 });
  });
});
