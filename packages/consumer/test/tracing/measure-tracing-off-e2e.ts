/**
 * CPU per message from `produce()` through the in-memory broker to an `@MMMQListener` and back (no network, no disk:
 * the libraries' own path, where the tracing call sites weigh most), 7 rounds of 20,000 messages, the first a warm-up.
 * Without a tracer provider it measures what tracing costs when off: run it on a build with the call sites and on one
 * without, alternating (ABBA), since other work on the machine moves the figures between runs.
 *
 *   npx tsc -b tsconfig.build.json
 *   npx ts-node --transpile-only packages/consumer/test/tracing/measure-tracing-off-e2e.ts
 */
import 'reflect-metadata';
import { InMemoryBroker, MmmqTestingModule } from '@mmmq/core/testing';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MmmqProducerModule, Producer } from '../../../producer/src';
import { MmmqConsumerModule, MMMQListener } from '../../src';

let handled = 0;
@Injectable()
class Listener {
  @MMMQListener('bench.*', { concurrency: 4 })
  handle(): void {
    handled++;
  }
}

@Module({
  imports: [MmmqTestingModule.forRoot(), MmmqProducerModule.forRoot(), MmmqConsumerModule.forRoot({ app: 'bench' })],
  providers: [Listener],
})
class AppModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(AppModule, { logger: false });
  await app.init();
  const producer = app.get(Producer);
  const broker = app.get(InMemoryBroker);
  const rounds: number[] = [];
  for (let round = 0; round < 7; round++) {
    const count = 20_000;
    handled = 0;
    const start = process.cpuUsage();
    for (let i = 0; i < count; i += 200) {
      const batch: Promise<unknown>[] = [];
      for (let j = 0; j < 200; j++) batch.push(producer.produce('bench.topic', { i: i + j }));
      await Promise.all(batch);
    }
    await broker.drain();
    const used = process.cpuUsage(start);
    if (handled !== count) throw new Error(`handled ${handled} of ${count}`);
    rounds.push((used.user + used.system) / count);
    broker.reset();
  }
  await app.close();
  const sorted = rounds.slice(1).sort((a, b) => a - b);
  console.log(
    `${process.env.V ?? ''} µs/message e2e in memory: ${rounds.map((r) => r.toFixed(1)).join(' ')} median ${sorted[3].toFixed(1)}`,
  );
}
void main();
