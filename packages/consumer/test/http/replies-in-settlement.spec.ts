import http from 'node:http';
import { REPLY_HEADERS, ReplyInboxes, SETTLEMENT_REPLIES_HEADER, type Reply } from '@mmmq/core';
import { Injectable } from '@nestjs/common';
import { MMMQListener, MmmqConsumerModule } from '../../src';
import { ConsumerApp, delivery, startConsumer } from '../support/consumer-app';

@Injectable()
class Quotes {
  @MMMQListener({ pattern: 'quote.*', consumerId: 'quotes' })
  price(request: { item: string }): { item: string; price: number } {
    if (request.item === 'none') throw new RangeError('no such item');
    return { item: request.item, price: 12.5 };
  }
}

const request = (item: string, correlationId: string, inbox: string, offset: number) =>
  delivery(
    { item },
    {
      id: `m-${offset}`,
      offset,
      topic: 'quote.price',
      headers: { [REPLY_HEADERS.replyTo]: inbox, [REPLY_HEADERS.correlationId]: correlationId },
    },
  );

/** A batched push of requests as the broker sends it, streamed reply accepted; resolves with the answer's lines. */
function pushRequests(consumer: ConsumerApp, messages: unknown[], carries: boolean): Promise<Array<Record<string, unknown>>> {
  return new Promise((resolve, reject) => {
    const call = http.request(`${consumer.url}/mmmq/messages/batch`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/x-ndjson, application/json',
        'mmmq-consumer-id': 'quotes',
        ...(carries ? { [SETTLEMENT_REPLIES_HEADER]: '1' } : {}),
      },
    });
    call.on('error', reject).on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        // A batch handled within one turn is answered whole, as JSON: its acknowledgements in order.
        if (!(response.headers['content-type'] ?? '').includes('ndjson')) {
          const { acknowledgements } = JSON.parse(text) as { acknowledgements: Array<Record<string, unknown>> };
          return resolve(acknowledgements.map((acknowledgement, index) => ({ index, ...acknowledgement })));
        }
        resolve(
          text
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as Record<string, unknown>),
        );
      });
    });
    call.end(JSON.stringify({ messages }));
  });
}

describe('a push whose broker relays the replies its acknowledgements carry (mmmq-settlement-replies)', () => {
  let consumer: ConsumerApp;
  beforeAll(async () => {
    consumer = await startConsumer({ imports: [MmmqConsumerModule.forRoot({ app: 'shop' })], providers: [Quotes] });
  });
  afterAll(() => consumer.close());

  it("answers each request's line with its reply, the handler's result or its error", async () => {
    const lines = await pushRequests(consumer, [request('tea', 'c-1', 'far-inbox', 0), request('none', 'c-2', 'far-inbox', 1)], true);
    expect(lines).toEqual([
      { index: 0, acknowledgement: 'ACK', reply: { inbox: 'far-inbox', correlationId: 'c-1', content: { item: 'tea', price: 12.5 } } },
      {
        index: 1,
        acknowledgement: 'ACK',
        reply: { inbox: 'far-inbox', correlationId: 'c-2', error: { name: 'RangeError', message: 'no such item' } },
      },
    ]);
  });

  it('hands the reply to a requester of its own process directly, and carries nothing', async () => {
    const received: Reply[] = [];
    const close = ReplyInboxes.open('near-inbox', (reply) => received.push(reply));
    try {
      const lines = await pushRequests(consumer, [request('tea', 'c-3', 'near-inbox', 2)], true);
      expect(lines).toEqual([{ index: 0, acknowledgement: 'ACK' }]);
      expect(received).toEqual([{ inbox: 'near-inbox', correlationId: 'c-3', content: { item: 'tea', price: 12.5 } }]);
    } finally {
      close();
    }
  });

  it('carries no reply to a broker that did not say it relays them (an older one)', async () => {
    const lines = await pushRequests(consumer, [request('tea', 'c-4', 'far-inbox', 3)], false);
    expect(lines).toEqual([{ index: 0, acknowledgement: 'ACK' }]);
  });
});
