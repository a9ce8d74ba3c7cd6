import http from 'node:http';
import { AddressInfo } from 'node:net';
import { BrokerApp, range, startBroker, waitFor } from '@mmmq/test-support';

interface Delivery {
  offset: number;
  deliveryCount: number;
  headers: Record<string, unknown>;
  content: { n: number };
}

/**
 * A plain HTTP consumer — node:http, no MMMQ library, one message per push — that answers each push `answerAfterMs`
 * after it arrived, and counts the pushes open at once (all of them, and per ordering key).
 */
class SlowPlainConsumer {
  readonly received: Array<Delivery & { session: unknown }> = [];
  open = 0;
  maxOpen = 0;
  /** Pushes open now per ordering key, and whether a key ever had two at once. */
  private readonly openByKey = new Map<string, number>();
  keyOverlapped = false;
  private readonly server = http.createServer((request, response) => {
    this.maxOpen = Math.max(this.maxOpen, ++this.open);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const delivery = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Delivery;
      this.received.push({ ...delivery, session: request.headers['mmmq-push-session'] });
      const key = delivery.headers['mmmq-ordering-key'] as string | undefined;
      if (key !== undefined) {
        const now = (this.openByKey.get(key) ?? 0) + 1;
        if (now > 1) this.keyOverlapped = true;
        this.openByKey.set(key, now);
      }
      setTimeout(() => {
        // Counted down before the answer leaves: the broker can only push the key's next message after it.
        if (key !== undefined) this.openByKey.set(key, this.openByKey.get(key)! - 1);
        this.open--;
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ acknowledgement: 'ACK' }));
      }, this.answerAfterMs);
    });
  });

  constructor(private readonly answerAfterMs: number) {}

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  offsets(): number[] {
    return this.received.map((delivery) => delivery.offset);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe('unordered delivery (ordered: false) to a plain HTTP consumer', () => {
  let broker: BrokerApp;
  let consumer: SlowPlainConsumer;

  const publish = async (count: number, headers: (n: number) => object = () => ({})) => {
    const messages = range(count).map((n) => ({ topic: 'audit.entry', content: { n }, headers: headers(n) }));
    const response = await broker.request('POST', '/mmmq/messages/batch', { messages });
    expect(response.status).toBe(200);
  };
  const delivered = (count: number) =>
    waitFor(() => consumer.received.length >= count, { message: () => `${count} deliveries, got ${consumer.received.length}` });

  beforeEach(async () => {
    broker = await startBroker();
  });
  afterEach(async () => {
    await broker.close();
    await consumer.stop();
  });

  it('has maxInFlight pushes in flight at once, unnumbered, and delivers and acknowledges every message once', async () => {
    consumer = new SlowPlainConsumer(50);
    await consumer.start();
    await publish(80);
    await broker.addDispatcher('auditor', consumer.url, 'audit.*', { ordered: false, maxInFlight: 8 });
    await delivered(80);
    await broker.caughtUp('auditor', 'audit.entry');

    expect(consumer.maxOpen).toBe(8);
    expect([...consumer.offsets()].sort((a, b) => a - b)).toEqual(range(80));
    expect(consumer.received.every((delivery) => delivery.deliveryCount === 1 && delivery.session === undefined)).toBe(true);
    const subscription = await broker.subscription('auditor', 'audit.entry');
    expect(subscription).toMatchObject({ position: 80, leased: 0 });
    expect(subscription.stats).toMatchObject({ delivered: 80, redelivered: 0, failures: 0 });
    expect((await broker.request('GET', '/mmmq/dispatchers/auditor')).body).toMatchObject({ ordered: false, maxInFlight: 8 });
  });

  it('keeps per-key order with ordering keys: never two messages of a key at once, each key in offset order', async () => {
    consumer = new SlowPlainConsumer(20);
    await consumer.start();
    const keyOf = (n: number) => `customer-${n % 4}`;
    await publish(120, (n) => ({ 'mmmq-ordering-key': keyOf(n) }));
    // Left at its default for ordered: false (DEFAULT_UNORDERED_MAX_IN_FLIGHT, 8): more places than keys.
    await broker.addDispatcher('auditor', consumer.url, 'audit.*', { ordered: false });
    await delivered(120);
    await broker.caughtUp('auditor', 'audit.entry');

    expect(consumer.keyOverlapped).toBe(false);
    // Concurrent across keys, one at a time within a key: at most 4 pushes at once, though 8 may be in flight.
    expect(consumer.maxOpen).toBeGreaterThan(1);
    expect(consumer.maxOpen).toBeLessThanOrEqual(4);
    for (const key of range(4).map(keyOf)) {
      const ofKey = consumer.received.filter((delivery) => delivery.headers['mmmq-ordering-key'] === key).map((d) => d.content.n);
      expect(ofKey).toEqual(range(120).filter((n) => keyOf(n) === key));
    }
  });

  it('without the option sends one push at a time, in offset order (unchanged)', async () => {
    consumer = new SlowPlainConsumer(5);
    await consumer.start();
    await publish(30);
    await broker.addDispatcher('auditor', consumer.url, 'audit.*');
    await delivered(30);
    await broker.caughtUp('auditor', 'audit.entry');

    expect(consumer.maxOpen).toBe(1);
    expect(consumer.offsets()).toEqual(range(30));
    expect((await broker.request('GET', '/mmmq/dispatchers/auditor')).body).not.toHaveProperty('ordered');
  });

  it('is refused with 400 naming both settings for an exclusive dispatcher, which is strictly ordered', async () => {
    consumer = new SlowPlainConsumer(5);
    await consumer.start();
    const response = await broker.request('POST', '/mmmq/dispatchers', {
      consumerId: 'auditor',
      host: consumer.url,
      pattern: 'audit.*',
      ordered: false,
      exclusive: true,
    });
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/ordered: false cannot go with exclusive: true/);
  });
});
