import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { InvalidBrokerOptionsError, isUnspecifiedAddress } from '@mmmq/broker';
import { Logger } from '@nestjs/common';
import { BrokerAppModule } from './broker-app.module';
import { readBrokerConfig } from './broker-config';
import { createBrokerApp } from './create-broker-app';

const logger = new Logger('MmmqBroker');

async function bootstrap(): Promise<void> {
  const config = readBrokerConfig(process.env);
  const app = await createBrokerApp(BrokerAppModule.register(config.broker), config.httpAdapter);
  app.enableShutdownHooks();
  if (isUnspecifiedAddress(config.host)) {
    const tokens = config.broker.auth?.tokens?.length ?? 0;
    logger.warn(
      `MMMQ_HOST=${config.host} binds every interface: any machine that can route here reaches the broker, and ` +
        `only the ${tokens} configured token(s) keep it out. Bind one interface if that is all clients need.`,
    );
  }
  await app.listen(config.port, config.host);
  const { address, port } = app.getHttpServer().address() as AddressInfo;
  logger.log(`Listening on http://${address}:${port}, data in ${config.broker.persistence.rootDir} (${config.httpAdapter})`);
}

bootstrap().catch((error: unknown) => {
  // A configuration mistake is fully explained by its message; anything else needs the stack.
  if (error instanceof InvalidBrokerOptionsError) logger.error(`Broker failed to start: ${error.message}`);
  else logger.error('Broker failed to start', error instanceof Error ? error.stack : String(error));
  process.exitCode = 1;
});
