import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BrokerApp, FAST_BACKOFF, range, startBroker, waitFor } from '@mmmq/test-support';

const TOPIC = 'order.created';
const CONSUMER_ID = 'billing';
const MESSAGES = 10;

interface Push {
  accept: string | undefined;
  messages: Array<{ offset: number; deliveryCount: number; redelivered: boolean }>;
  response: http.ServerResponse;
}

/**
 * A consumer that streams its replies by hand, one NDJSON line at a time, as the test says: what the consumer library
 * does as each handler finishes (docs/http-api.md, "Streamed settlement").
 */
class StreamingConsumer {
  readonly pushes: Push[] = [];
  onPush: (push: Push) => void = () => undefined;
  private readonly server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const push = { accept: request.headers.accept, messages: JSON.parse(Buffer.concat(chunks).toString('utf8')).messages, response };
      this.pushes.push(push);
      this.onPush(push);
    });
  });

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  start(): Promise<void> {
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const line = (index: number, acknowledgement: 'ACK' | 'NACK') => `${JSON.stringify({ index, acknowledgement })}\n`;

describe('a batched push settled by a streamed reply', () => {
  let broker: BrokerApp;
  let consumer: StreamingConsumer;

  beforeEach(async () => {
    consumer = new StreamingConsumer();
    await consumer.start();
    broker = await startBroker({ delivery: FAST_BACKOFF });
  });
  afterEach(async () => {
    await broker.close();
    await consumer.stop();
  });

  it('settles each line as it arrives, and after the consumer hangs up gives back only the messages no line settled', async () => {
    consumer.onPush = ({ response }) => {
      if (consumer.pushes.length > 1) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ acknowledgements: consumer.pushes.at(-1)!.messages.map(() => ({ acknowledgement: 'ACK' })) }));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      response.write(line(0, 'ACK') + line(1, 'ACK') + line(2, 'ACK'));
    };
    await broker.publishAll(TOPIC, range(MESSAGES));
    await broker.addDispatcher(CONSUMER_ID, consumer.url, TOPIC, { batchSize: 100 });
    await waitFor(() => consumer.pushes.length === 1, { message: 'the first push' });
    expect(consumer.pushes[0].accept).toContain('application/x-ndjson');
    expect(consumer.pushes[0].messages).toHaveLength(MESSAGES);
    // Settled while the push is still open: the cursor moves past the three lines.
    await waitFor(async () => (await broker.subscription(CONSUMER_ID, TOPIC)).position === 3, {
      message: 'the three streamed ACKs to settle',
    });

    // The consumer dies mid-reply.
    consumer.pushes[0].response.destroy();
    await waitFor(() => consumer.pushes.length === 2, { message: 'the messages not settled to come again' });
    await broker.caughtUp(CONSUMER_ID, TOPIC);
    const again = consumer.pushes[1].messages;
    expect(again.map(({ offset }) => offset)).toEqual(range(MESSAGES).slice(3));
    expect(again.every(({ deliveryCount, redelivered }) => deliveryCount === 2 && redelivered)).toBe(true);
    expect((await broker.subscription(CONSUMER_ID, TOPIC)).stats.delivered).toBe(MESSAGES);
  });

  it('fails the push on a line that is not JSON, the last one in: the messages come again, the broker goes on', async () => {
    consumer.onPush = ({ response, messages }) => {
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      if (consumer.pushes.length > 1) return response.end(messages.map((_, i) => line(i, 'ACK')).join(''));
      response.end(`${line(0, 'ACK')}not json\n`);
    };
    await broker.publishAll(TOPIC, range(2));
    await broker.addDispatcher(CONSUMER_ID, consumer.url, TOPIC, { batchSize: 100 });
    await broker.caughtUp(CONSUMER_ID, TOPIC);
    expect(consumer.pushes.map((push) => push.messages.map(({ offset }) => offset))).toEqual([[0, 1], [1]]);
  });

  it('applies a streamed NACK at once, and settles the rest from lines in any order', async () => {
    consumer.onPush = ({ response, messages }) => {
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      if (consumer.pushes.length > 1) return response.end(messages.map((_, i) => line(i, 'ACK')).join(''));
      response.end(line(2, 'ACK') + line(0, 'NACK') + line(1, 'ACK'));
    };
    await broker.publishAll(TOPIC, range(3));
    await broker.addDispatcher(CONSUMER_ID, consumer.url, TOPIC, { batchSize: 100 });
    await broker.caughtUp(CONSUMER_ID, TOPIC);
    expect(consumer.pushes.map((push) => push.messages.map(({ offset }) => offset))).toEqual([[0, 1, 2], [0]]);
    const subscription = await broker.subscription(CONSUMER_ID, TOPIC);
    expect(subscription.stats).toMatchObject({ delivered: 3, nacked: 1 });
  });

  it('lets a reply that keeps settling run past the push timeout, which counts from its last line', async () => {
    await broker.close();
    broker = await startBroker({ delivery: { ...FAST_BACKOFF, timeoutMs: 400 } });
    consumer.onPush = ({ response, messages }) => {
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      // A line every 150 ms: the whole reply takes 900 ms, more than twice the timeout.
      const next = (index: number) => {
        if (index === messages.length) return response.end();
        response.write(line(index, 'ACK'));
        setTimeout(() => next(index + 1), 150);
      };
      next(0);
    };
    await broker.publishAll(TOPIC, range(6));
    await broker.addDispatcher(CONSUMER_ID, consumer.url, TOPIC, { batchSize: 100 });
    await broker.caughtUp(CONSUMER_ID, TOPIC);
    expect(consumer.pushes).toHaveLength(1);
    const subscription = await broker.subscription(CONSUMER_ID, TOPIC);
    expect(subscription.stats).toMatchObject({ delivered: 6, redelivered: 0 });
    expect(subscription.members[0].failedPushes).toBe(0);
  });

  it('fails the push when the stream ends without a line for every message, keeping the lines it had', async () => {
    consumer.onPush = ({ response, messages }) => {
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      if (consumer.pushes.length > 1) return response.end(messages.map((_, i) => line(i, 'ACK')).join(''));
      response.end(line(0, 'ACK'));
    };
    await broker.publishAll(TOPIC, range(3));
    await broker.addDispatcher(CONSUMER_ID, consumer.url, TOPIC, { batchSize: 100 });
    await broker.caughtUp(CONSUMER_ID, TOPIC);
    expect(consumer.pushes.map((push) => push.messages.map(({ offset }) => offset))).toEqual([
      [0, 1, 2],
      [1, 2],
    ]);
    const subscription = await broker.subscription(CONSUMER_ID, TOPIC);
    expect(subscription.members[0].lastError).toContain('the streamed reply ended with 2 of 3 messages unsettled');
  });
});
