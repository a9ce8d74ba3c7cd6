import { registerRawBodyParser, TlsCredentials } from '@mmmq/broker';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { HttpAdapterName } from './broker-config';

/** Nest's default aborts the process (core dump) on a bootstrap error; a clear message and exit code suffice. */
const ABORT_ON_ERROR = false;

/**
 * The broker app on the chosen HTTP platform, set up to hand request bodies to the broker as raw bytes; over
 * HTTPS when `tls` is given.
 */
export async function createBrokerApp(
  module: DynamicModule,
  adapter: HttpAdapterName,
  tls?: TlsCredentials & { handshakeTimeout: number },
): Promise<INestApplication> {
  if (adapter === 'fastify') {
    const platform = new FastifyAdapter(tls && { https: tls });
    const app = await NestFactory.create(module, platform, { bodyParser: false, abortOnError: ABORT_ON_ERROR });
    registerRawBodyParser(app);
    return app;
  }
  // The broker stores request bodies byte for byte, so it reads them itself.
  const app = await NestFactory.create<NestExpressApplication>(module, {
    bodyParser: false,
    abortOnError: ABORT_ON_ERROR,
    httpsOptions: tls,
  });
  // Advertising the framework helps nobody but attackers.
  app.disable('x-powered-by');
  return app;
}
