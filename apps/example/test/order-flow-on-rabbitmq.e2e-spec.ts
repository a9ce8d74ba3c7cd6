import { freePort, waitFor } from '@mmmq/test-support';
import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { connect } from 'amqplib';
import { Ledger } from '../src/billing/ledger';
import { ExampleAppModule } from '../src/example-app.module';
import { expectedLedger, placeTwoOrdersAndCancelOne } from './order-steps';

const RABBITMQ = 'amqp://guest:guest@127.0.0.1:5672';
/** The example's consumer ids are its RabbitMQ queues (docs/scaling.md, "The mapping"). */
const QUEUES = ['example.invoice-listener.on-order-created', 'example.refund-listener'];

/** Deletes the example's queues and their retry and dead-letter queues, so no earlier run's message is seen. */
async function deleteExampleQueues(): Promise<void> {
  const connection = await connect(RABBITMQ);
  try {
    const channel = await connection.createChannel();
    for (const queue of QUEUES) {
      for (const name of [queue, `${queue}.dlq`, `${queue}.retry.1000`, `${queue}.retry.2000`, `${queue}.retry.4000`]) {
        await channel.deleteQueue(name);
      }
    }
  } finally {
    await connection.close();
  }
}

describe('the example on RabbitMQ: the same code, MMMQ_BROKER=amqp://…', () => {
  let example: INestApplication;

  beforeAll(async () => {
    await deleteExampleQueues();
    const port = await freePort();
    example = await NestFactory.create(ExampleAppModule.register({ broker: RABBITMQ, port }), { logger: false });
    await example.listen(port, '127.0.0.1');
  });
  afterAll(async () => {
    await example?.close();
    await deleteExampleQueues();
  });

  it('invoices placed orders and refunds the cancelled one through RabbitMQ quorum queues', async () => {
    const url = await example.getUrl();
    const orders = await placeTwoOrdersAndCancelOne(url);

    const ledger = example.get(Ledger);
    await waitFor(() => ledger.entries.length === 3, {
      deadlineMs: 30_000,
      message: () => `three ledger entries, got ${JSON.stringify(ledger.entries)}`,
    });
    expect(ledger.entries).toEqual(expect.arrayContaining(expectedLedger(orders)));
  });
});
