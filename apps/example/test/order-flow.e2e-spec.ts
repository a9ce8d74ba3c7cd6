import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MmmqBrokerModule } from '@mmmq/broker';
import { freePort, waitFor } from '@mmmq/test-support';
import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ledger } from '../src/billing/ledger';
import { ExampleAppModule } from '../src/example-app.module';
import { expectedLedger, placeTwoOrdersAndCancelOne } from './order-steps';

describe('the example: order service → broker → billing service', () => {
  let rootDir: string;
  let broker: INestApplication;
  let example: INestApplication;

  beforeAll(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-example-'));
    broker = await NestFactory.create(MmmqBrokerModule.forRoot({ persistence: { rootDir } }), { bodyParser: false, logger: false });
    await broker.listen(0, '127.0.0.1');
    const brokerUrl = `http://127.0.0.1:${(broker.getHttpServer().address() as AddressInfo).port}`;
    const port = await freePort();
    example = await NestFactory.create(ExampleAppModule.register({ broker: brokerUrl, port }), { logger: false });
    await example.listen(port, '127.0.0.1');
  });
  afterAll(async () => {
    await example.close();
    await broker.close();
    await rm(rootDir, { recursive: true, force: true });
  });

  it('invoices placed orders and refunds the cancelled one, over real HTTP', async () => {
    const url = await example.getUrl();
    const orders = await placeTwoOrdersAndCancelOne(url);

    const ledger = example.get(Ledger);
    await waitFor(() => ledger.entries.length === 3, {
      deadlineMs: 30_000,
      message: () => `three ledger entries, got ${JSON.stringify(ledger.entries)}`,
    });
    expect(ledger.entries).toEqual(expect.arrayContaining(expectedLedger(orders)));
    const dispatchers = (await (await fetch(`${await broker.getUrl()}/mmmq/dispatchers`)).json()) as Array<{ consumerId: string }>;
    expect(dispatchers.map((dispatcher) => dispatcher.consumerId).sort()).toEqual(
      ['example.invoice-listener.on-order-created', 'example.refund-listener'].sort(),
    );
  });
});
