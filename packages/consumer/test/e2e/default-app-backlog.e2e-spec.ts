import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessageContext, MmmqConsumerModule, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { freePort } from '../support/consumer-app';
import { waitFor } from '../support/wait-for';

const BACKLOG = 5_000;
/** 1 KiB of content: a push of the broker's default 500 is over half a MiB, five times Express's JSON limit. */
const PADDING = 'x'.repeat(1_000);
/** About 12 s on an idle machine; CI runs it beside other suites on two CPUs. */
const DRAIN_DEADLINE_MS = 120_000;

@Injectable()
class Worker {
  readonly offsets: number[] = [];
  redelivered = 0;

  @MMMQListener('work.todo', { consumerId: 'worker' })
  onWork(_content: { n: number; padding: string }, context: MessageContext): void {
    this.offsets.push(context.offset);
    if (context.redelivered) this.redelivered++;
  }
}

describe('a push consumer created with a plain NestFactory.create() (Express, default body parser)', () => {
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(() => broker?.close());

  it(
    `drains a backlog of ${BACKLOG.toLocaleString('en')} 1 KiB messages in order, with no push refused as too large`,
    async () => {
      for (let from = 0; from < BACKLOG; from += 500) {
        await broker.publishAll(
          'work.todo',
          Array.from({ length: 500 }, (_, i) => ({ n: from + i, padding: PADDING })),
        );
      }
      const port = await freePort();
      @Module({
        imports: [MmmqConsumerModule.forRoot({ app: 'ops', broker: broker.url, advertisedUrl: `http://127.0.0.1:${port}` })],
        providers: [Worker],
      })
      class WorkerModule {}
      const app = await NestFactory.create(WorkerModule, { logger: false });
      await app.listen(port, '127.0.0.1');
      try {
        const worker = app.get(Worker);
        await waitFor(() => worker.offsets.length >= BACKLOG, `${BACKLOG} handled`, DRAIN_DEADLINE_MS);
        expect(worker.offsets).toEqual(Array.from({ length: BACKLOG }, (_, i) => i));
        expect(worker.redelivered).toBe(0);
        const subscription = await broker.subscription('worker', 'work.todo');
        // A 413 would have lowered the member's push size below the dispatcher's batchSize (batchLimit).
        expect(subscription.members.map((member: { batchLimit?: number }) => member.batchLimit)).toEqual([undefined]);
      } finally {
        await app.close();
      }
    },
    DRAIN_DEADLINE_MS + 30_000,
  );
});
