import 'reflect-metadata';
import { MmmqServer } from '@mmmq/microservices';
import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type CustomStrategy, MessagePattern, type MicroserviceOptions, Payload, type RmqOptions, Transport } from '@nestjs/microservices';
import type { BenchContent } from '../payload';
import { NEST_LOGGER } from './mmmq-consumer-app';
import type { FromRpcReplier, RpcReplierSettings } from './rpc-replier-protocol';

/**
 * The request-reply workload's replier, run by the bench as a child process (`rpc-replier.ts`): a Nest microservice
 * with ONE `@MessagePattern` handler, the same class on either transport — MMMQ's `MmmqServer` (push from the
 * standalone broker) or Nest's own `Transport.RMQ` on RabbitMQ. `BENCH_RPC_SETTINGS` (JSON) says which.
 */
const settings = JSON.parse(process.env.BENCH_RPC_SETTINGS ?? 'null') as RpcReplierSettings;

@Controller()
class EchoController {
  /** The handler both transports run: the request back, as an application's lookup would answer it. */
  @MessagePattern(settings.pattern)
  echo(@Payload() request: BenchContent): BenchContent {
    return request;
  }
}

@Module({ controllers: [EchoController] })
class RpcReplierModule {}

function strategy(s: RpcReplierSettings): MicroserviceOptions {
  if (s.transport === 'rmq') {
    const rmq: RmqOptions = {
      transport: Transport.RMQ,
      options: { urls: [s.url], queue: s.queue, prefetchCount: s.concurrency, ...s.rmq },
    };
    return rmq;
  }
  const mmmq: CustomStrategy = {
    strategy: new MmmqServer({
      app: s.app,
      broker: s.url,
      advertisedUrl: `http://127.0.0.1:${s.port}`,
      host: '127.0.0.1',
      listeners: { [s.pattern]: { concurrency: s.concurrency } },
    }),
  };
  return mmmq;
}

async function main(): Promise<void> {
  const app = await NestFactory.createMicroservice(RpcReplierModule, { ...strategy(settings), logger: NEST_LOGGER });
  app.enableShutdownHooks(['SIGTERM'], { useProcessExit: true });
  await app.listen();
  send({ kind: 'ready' });
}

const send = (message: FromRpcReplier) => process.send!(message);

main().catch((error: unknown) => {
  process.stderr.write(`the replier failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
