import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { REPLY_HEADERS, SETTLEMENT_REPLIES_HEADER } from '@mmmq/core';
import { BrokerApp, FAST_BACKOFF, startBroker, waitFor } from '@mmmq/test-support';

const TOPIC = 'quote.price';
const CONSUMER_ID = 'quotes';
const INBOX = 'inbox-settled';

interface Push {
  headers: http.IncomingHttpHeaders;
  messages: Array<{ headers: Record<string, string>; deliveryCount: number }>;
  response: http.ServerResponse;
}

/** A replier that answers each push by hand, one NDJSON line per message, as the test says. */
class HandAnsweringReplier {
  readonly pushes: Push[] = [];
  answer: (push: Push) => void = () => undefined;
  private readonly server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const push = { headers: request.headers, messages: JSON.parse(Buffer.concat(chunks).toString('utf8')).messages, response };
      this.pushes.push(push);
      this.answer(push);
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

const streamed = (response: http.ServerResponse, lines: unknown[]) => {
  response.writeHead(200, { 'content-type': 'application/x-ndjson' });
  response.end(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
};

describe('a reply carried in the acknowledgement of a pushed request (docs/http-api.md § Replies in the settlement)', () => {
  let broker: BrokerApp;
  let replier: HandAnsweringReplier;

  const publishRequest = async (correlationId: string) => {
    const headers = { [REPLY_HEADERS.replyTo]: INBOX, [REPLY_HEADERS.correlationId]: correlationId };
    const published = await broker.request('POST', '/mmmq/messages', { topic: TOPIC, content: { item: 'tea' }, headers });
    expect(published.status).toBe(200);
  };
  const collect = async (waitMs: number) => (await broker.request('POST', `/mmmq/replies/${INBOX}/fetch`, { waitMs })).body.replies;

  beforeEach(async () => {
    replier = new HandAnsweringReplier();
    await replier.start();
    broker = await startBroker({ delivery: FAST_BACKOFF });
  });
  afterEach(async () => {
    await broker.close();
    await replier.stop();
  });

  it('is relayed to its requester with the request acknowledged: one line, no reply request', async () => {
    replier.answer = ({ response, messages }) =>
      streamed(
        response,
        messages.map(({ headers }, index) => ({
          index,
          acknowledgement: 'ACK',
          reply: { inbox: headers[REPLY_HEADERS.replyTo], correlationId: headers[REPLY_HEADERS.correlationId], content: { price: 12.5 } },
        })),
      );
    await broker.addDispatcher(CONSUMER_ID, replier.url, TOPIC, { batchSize: 10 });
    const waiting = collect(30_000);
    await publishRequest('c-1');
    expect(await waiting).toEqual([{ inbox: INBOX, correlationId: 'c-1', content: { price: 12.5 } }]);
    expect(replier.pushes[0].headers[SETTLEMENT_REPLIES_HEADER]).toBe('1');
    await broker.caughtUp(CONSUMER_ID, TOPIC);
    expect((await broker.subscription(CONSUMER_ID, TOPIC)).stats).toMatchObject({ delivered: 1, nacked: 0 });
    expect(replier.pushes).toHaveLength(1);
  });

  it('carries an error reply with a verdict: relayed, and the request dead-lettered', async () => {
    replier.answer = ({ response, messages }) =>
      streamed(
        response,
        messages.map(({ headers }, index) => ({
          index,
          acknowledgement: 'NACK',
          retry: false,
          message: 'no such item',
          reply: {
            inbox: INBOX,
            correlationId: headers[REPLY_HEADERS.correlationId],
            error: { name: 'NonRetriableError', message: 'no such item' },
          },
        })),
      );
    await broker.addDispatcher(CONSUMER_ID, replier.url, TOPIC, { batchSize: 10 });
    await publishRequest('c-2');
    await waitFor(async () => (await broker.deadLetters(CONSUMER_ID)).length === 1, { message: 'the request dead-lettered' });
    expect(await collect(0)).toEqual([
      { inbox: INBOX, correlationId: 'c-2', error: { name: 'NonRetriableError', message: 'no such item' } },
    ]);
  });

  it('takes an acknowledgement whose reply is not one as a NACK: nothing relayed, the request delivered again', async () => {
    replier.answer = ({ response, messages }) => {
      const correlationId = messages[0].headers[REPLY_HEADERS.correlationId];
      const reply =
        replier.pushes.length === 1
          ? { inbox: INBOX, correlationId, content: 1, stack: 'at …' }
          : { inbox: INBOX, correlationId, content: 2 };
      streamed(response, [{ index: 0, acknowledgement: 'ACK', reply }]);
    };
    await broker.addDispatcher(CONSUMER_ID, replier.url, TOPIC, { batchSize: 10 });
    await publishRequest('c-3');
    await broker.caughtUp(CONSUMER_ID, TOPIC);
    expect(replier.pushes.map(({ messages }) => messages[0].deliveryCount)).toEqual([1, 2]);
    expect((await broker.subscription(CONSUMER_ID, TOPIC)).stats).toMatchObject({ nacked: 1 });
    expect(await collect(0)).toEqual([{ inbox: INBOX, correlationId: 'c-3', content: 2 }]);
  });

  it('is relayed from a whole JSON answer too', async () => {
    replier.answer = ({ response, messages }) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const acknowledgements = messages.map(({ headers }) => ({
        acknowledgement: 'ACK',
        reply: { inbox: INBOX, correlationId: headers[REPLY_HEADERS.correlationId], content: 'whole' },
      }));
      response.end(JSON.stringify({ acknowledgements }));
    };
    await broker.addDispatcher(CONSUMER_ID, replier.url, TOPIC, { batchSize: 10 });
    await publishRequest('c-4');
    await broker.caughtUp(CONSUMER_ID, TOPIC);
    expect(await collect(0)).toEqual([{ inbox: INBOX, correlationId: 'c-4', content: 'whole' }]);
  });
});
