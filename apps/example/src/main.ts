import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExampleAppModule } from './example-app.module';
import { InvalidExampleConfigError, readExampleConfig } from './example-config';
import { OrdersService } from './orders/orders.service';

const logger = new Logger('Example');
/** Ctrl-C and `kill`: close (listeners drain, the broker redelivers what was not acknowledged), then exit 0. */
const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM'];

async function bootstrap(): Promise<void> {
  const config = readExampleConfig(process.env);
  const app = await NestFactory.create(ExampleAppModule.register(config));
  app.enableShutdownHooks(SHUTDOWN_SIGNALS, { useProcessExit: true });
  await app.listen(config.port, '127.0.0.1');
  logger.log(`Order API on http://127.0.0.1:${config.port}/orders, broker at ${config.broker}`);
  if (!config.demo) return;
  const orders = app.get(OrdersService);
  const first = await orders.place('keyboard', 49.9);
  await orders.place('monitor', 189);
  await orders.cancel(first.orderId, 'changed my mind');
}

bootstrap().catch((error: unknown) => {
  if (error instanceof InvalidExampleConfigError) logger.error(`Example failed to start: ${error.message}`);
  else logger.error(`Example failed: ${(error as Error)?.message ?? String(error)}`, (error as Error)?.stack);
  process.exitCode = 1;
});
