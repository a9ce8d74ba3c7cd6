import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { InvalidBrokerOptionsError } from '@mmmq/broker';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { BrokerAppModule } from './broker-app.module';
import { readBrokerConfig } from './broker-config';

const logger = new Logger('MmmqBroker');

async function bootstrap(): Promise<void> {
  const config = readBrokerConfig(process.env);
  const app = await NestFactory.create<NestExpressApplication>(BrokerAppModule.register(config.broker), {
    // The broker stores request bodies byte for byte, so it reads them itself.
    bodyParser: false,
    // Nest's default aborts the process (core dump) on a bootstrap error; a clear message and exit code suffice.
    abortOnError: false,
  });
  // Advertising the framework helps nobody but attackers.
  app.disable('x-powered-by');
  app.enableShutdownHooks();
  await app.listen(config.port, config.host);
  const { address, port } = app.getHttpServer().address() as AddressInfo;
  logger.log(`Listening on http://${address}:${port}, data in ${config.broker.persistence.rootDir}`);
}

bootstrap().catch((error: unknown) => {
  // A configuration mistake is fully explained by its message; anything else needs the stack.
  if (error instanceof InvalidBrokerOptionsError) logger.error(`Broker failed to start: ${error.message}`);
  else logger.error('Broker failed to start', error instanceof Error ? error.stack : String(error));
  process.exitCode = 1;
});
