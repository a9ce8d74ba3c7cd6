import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExactlyOnceAppModule } from './exactly-once-app.module';
import { InvalidExactlyOnceConfigError, readExactlyOnceConfig } from './exactly-once-config';

const logger = new Logger('ExactlyOnce');
/** Ctrl-C and `kill`: close (billing drains, the relay and the database connections close), then exit 0. */
const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM'];

async function bootstrap(): Promise<void> {
  const config = readExactlyOnceConfig(process.env);
  const app = await NestFactory.create(ExactlyOnceAppModule.register(config));
  app.enableShutdownHooks(SHUTDOWN_SIGNALS, { useProcessExit: true });
  await app.listen(config.port, '127.0.0.1');
  logger.log(
    `Orders on http://127.0.0.1:${config.port}/orders, charges on /charges; broker at ${config.broker}, ` +
      `tables in schema ${config.schema}${config.loseFirstAck ? '; BILLING_LOSE_FIRST_ACK=1: first acknowledgements are lost' : ''}`,
  );
}

bootstrap().catch((error: unknown) => {
  if (error instanceof InvalidExactlyOnceConfigError) logger.error(`Example failed to start: ${error.message}`);
  else logger.error(`Example failed: ${(error as Error)?.message ?? String(error)}`, (error as Error)?.stack);
  process.exitCode = 1;
});
