// Run in a child process by test/support/microservice-process.ts: a standalone microservice on MmmqServer whose
// handler takes HANDLER_MS per message, stopped by a signal (enableShutdownHooks).
import './source-paths';
import 'reflect-metadata';
import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { setTimeout as delay } from 'node:timers/promises';
import { MmmqContext, MmmqServer } from '../../src';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};
const HANDLER_MS = Number(env('HANDLER_MS'));
/** Messages a push carries (default 1: see main). */
const BATCH_SIZE = Number(process.env.BATCH_SIZE ?? 1);

/** One line per event on stdout, which the test reads: `EVENT <json>`. */
const record = (event: Record<string, unknown>) => process.stdout.write(`EVENT ${JSON.stringify({ ...event, at: Date.now() })}\n`);

@Controller()
class JobsController {
  @EventPattern('job.*')
  async run(@Payload() job: { name: string }, @Ctx() context: MmmqContext): Promise<void> {
    record({ event: 'started', name: job.name, deliveryCount: context.getDeliveryCount() });
    await delay(HANDLER_MS);
    record({ event: 'finished', name: job.name });
  }
}

@Module({ controllers: [JobsController] })
class SlowHandlerModule {}

async function main(): Promise<void> {
  const delivery = env('DELIVERY') as 'push' | 'pull';
  const server = new MmmqServer({
    app: 'drain',
    broker: env('BROKER_URL'),
    delivery,
    shutdownTimeoutMs: 30_000,
    // One message a push unless BATCH_SIZE says more: a batch push is one job that a drain runs to its end (packages/
    // consumer DeliveryHandler.handleBatch), so the messages after the running one would not be left to the next instance.
    ...(delivery === 'push' ? { advertisedUrl: env('ADVERTISED_URL'), host: '127.0.0.1', deliveryBatchSize: BATCH_SIZE } : {}),
  });
  const app = await NestFactory.createMicroservice(SlowHandlerModule, {
    strategy: server,
    logger: process.env.VERBOSE ? ['error', 'warn', 'log', 'debug'] : ['error', 'warn'],
  });
  // Exit 0 once closed, rather than dying of the signal.
  app.enableShutdownHooks(['SIGTERM'], { useProcessExit: true });
  await app.listen();
  record({ event: 'ready' });
}

main().catch((error: unknown) => {
  process.stderr.write(`failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
