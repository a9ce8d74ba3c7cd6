import http from 'node:http';
import { Injectable } from '@nestjs/common';
import { MMMQListener, MmmqConsumerModule } from '../../src';
import { ConsumerApp, delivery, startConsumer } from '../support/consumer-app';
import { Gate } from '../support/gate';
import { OrderCreated, validOrder } from '../support/order-created.dto';
import { waitFor } from '../support/wait-for';

@Injectable()
class OrderListener {
  /** Held open while the order with this id runs. */
  readonly gates = new Map<string, Gate>();

  @MMMQListener('order.*')
  async onOrder(order: OrderCreated): Promise<unknown> {
    await this.gates.get(order.orderId)?.promise;
    if (order.orderId === 'throw') throw new Error('database unavailable');
    return undefined;
  }
}

const ID = 'billing.order-listener.on-order';

/** A batched push as the broker sends it; resolves with the response once its headers are in. */
function pushBatch(consumer: ConsumerApp, orderIds: string[], accept?: string): Promise<http.IncomingMessage> {
  const body = JSON.stringify({
    messages: orderIds.map((orderId, offset) => delivery(validOrder(orderId), { id: `m-${offset}`, offset })),
  });
  return new Promise((resolve, reject) => {
    const request = http.request(`${consumer.url}/mmmq/messages/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mmmq-consumer-id': ID, ...(accept ? { accept } : {}) },
    });
    request.on('response', resolve).on('error', reject);
    request.end(body);
  });
}

/** The lines of a streamed reply as they arrive. */
function linesOf(response: http.IncomingMessage): { lines: unknown[]; ended: Promise<void> } {
  const lines: unknown[] = [];
  let rest = '';
  response.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString('utf8')).split('\n');
    rest = parts.pop()!;
    lines.push(...parts.map((part) => JSON.parse(part)));
  });
  return { lines, ended: new Promise((resolve) => response.on('end', resolve)) };
}

describe('POST /mmmq/messages/batch with a streamed reply', () => {
  let consumer: ConsumerApp;
  beforeAll(async () => {
    consumer = await startConsumer({
      imports: [MmmqConsumerModule.forRoot({ app: 'billing', workers: { max: 1 } })],
      providers: [OrderListener],
    });
  });
  afterAll(() => consumer.close());

  it('writes each message’s acknowledgement as its handler finishes, before the batch is done', async () => {
    const gate = new Gate();
    consumer.app.get(OrderListener).gates.set('o-3', gate);
    const response = await pushBatch(consumer, ['o-1', 'throw', 'o-3'], 'application/x-ndjson, application/json');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('application/x-ndjson');
    const { lines, ended } = linesOf(response);
    // o-3's handler is held: the first two are settled already.
    await waitFor(() => lines.length === 2, 'the lines of the two handlers done');
    expect(lines).toEqual([
      { index: 0, acknowledgement: 'ACK' },
      { index: 1, acknowledgement: 'NACK', message: 'database unavailable' },
    ]);
    gate.open();
    await ended;
    expect(lines[2]).toEqual({ index: 2, acknowledgement: 'ACK' });
  });
});
