import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { MessageContext, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import type { ConsumerApp } from '../support/consumer-app';
import { startRegisteredConsumer } from '../support/registered-consumer';
import { waitFor } from '../support/wait-for';

const MESSAGES = 300;

@Injectable()
class LedgerListener {
  readonly offsets: number[] = [];

  @MMMQListener('ledger.*')
  async onEntry(_entry: { n: number }, context: MessageContext): Promise<void> {
    // Handlers that take a little while, differently each time, so pushes pile up on their way.
    await new Promise((resolve) => setTimeout(resolve, context.offset % 3));
    this.offsets.push(context.offset);
  }
}

const CONSUMER_ID = 'billing.ledger-listener.on-entry';

describe('pipelined pushes', () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp;
  let open = 0;
  let maxOpen = 0;

  beforeAll(async () => {
    broker = await startBroker();
    for (let n = 0; n < MESSAGES; n++) await broker.publish('ledger.posted', { n });
    consumer = await startRegisteredConsumer(broker, [LedgerListener], { deliveryBatchSize: 1, deliveryMaxInFlight: 8 });
    (consumer.app.getHttpServer() as Server).on('request', (request: IncomingMessage, response: ServerResponse) => {
      if (!request.url?.startsWith('/mmmq/messages')) return;
      maxOpen = Math.max(maxOpen, ++open);
      response.once('close', () => open--);
    });
  });
  afterAll(async () => {
    await consumer?.close();
    await broker?.close();
  });

  it('are asked for at registration, overlap on the wire, and reach the listener in offset order', async () => {
    const listener = consumer.app.get(LedgerListener);
    await waitFor(() => listener.offsets.length >= MESSAGES, 'every ledger entry');
    await broker.caughtUp(CONSUMER_ID, 'ledger.posted');

    // A push sent before the consumer listened fails and is resent, so the first offsets may come twice.
    const firstTime = listener.offsets.filter((offset, i) => listener.offsets.indexOf(offset) === i);
    expect(firstTime).toEqual(Array.from({ length: MESSAGES }, (_, n) => n));
    const repeats = listener.offsets.slice(listener.offsets.indexOf(MESSAGES - 1) + 1);
    expect(repeats).toEqual([]);
    expect(maxOpen).toBeGreaterThan(1);
    const dispatcher = await broker.request('GET', `/mmmq/dispatchers/${CONSUMER_ID}`);
    expect(dispatcher.body).toMatchObject({ consumerId: CONSUMER_ID, batchSize: 1, maxInFlight: 8 });
  });
});
