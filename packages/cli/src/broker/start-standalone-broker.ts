import type { AddressInfo } from 'node:net';
import type { Server as TlsServer } from 'node:tls';
import {
  DEFAULT_HEADERS_TIMEOUT_MS,
  InvalidBrokerOptionsError,
  readTlsCredentials,
  TlsCertificateError,
  TlsCertificates,
} from '@mmmq/broker';
import { isUnspecifiedAddress } from '@mmmq/broker/internal';
import { INestApplication, Logger } from '@nestjs/common';
import { BrokerAppModule } from './broker-app.module';
import { readBrokerConfig } from './broker-config';
import { createBrokerApp } from './create-broker-app';
import { PortUnavailableError, portUnavailable } from './port-unavailable.error';
import { applyLogFormat } from './log-format';

const logger = new Logger('MmmqBroker');
const TLS_VARIABLES = { keyFile: 'MMMQ_TLS_KEY_FILE', certFile: 'MMMQ_TLS_CERT_FILE' };
/** Signals that stop the broker cleanly: it answers what it accepted and closes every topic first. */
const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT'];

/**
 * Starts the standalone broker configured by `env` (the `MMMQ_*` variables, docs/http-api.md § Standalone server)
 * and resolves once it listens. SIGTERM and SIGINT stop it cleanly and exit the process. On a failed start it
 * logs why, closes what it opened and exits with 1: it is meant to own the process (`mmmq broker`,
 * `apps/broker`).
 */
export async function startStandaloneBroker(env: NodeJS.ProcessEnv = process.env): Promise<INestApplication> {
  // Set once the application exists, so a failed start can close what it opened (the publish stream, the topics).
  let started: INestApplication | undefined;
  try {
    return await bootstrap(env, (app) => (started = app));
  } catch (thrown) {
    const error = portUnavailable(thrown) ?? thrown;
    // A configuration mistake is fully explained by its message; anything else needs the stack.
    if (error instanceof InvalidBrokerOptionsError || error instanceof TlsCertificateError || error instanceof PortUnavailableError)
      logger.error(`Broker failed to start: ${error.message}`);
    else logger.error('Broker failed to start', error instanceof Error ? error.stack : String(error));
    // A port already in use fails `listen` after the publish stream and the topics are open: close them, then exit
    // (they would otherwise keep the process alive, a broker that serves nothing over HTTP).
    await (started as INestApplication | undefined)
      ?.close()
      .catch((closeError: unknown) => logger.error('Closing after the failed start failed', String(closeError)));
    process.exit(1);
  }
}

async function bootstrap(env: NodeJS.ProcessEnv, onCreated: (app: INestApplication) => void): Promise<INestApplication> {
  applyLogFormat(env);
  const config = readBrokerConfig(env);
  // A TLS handshake gets the time a request head gets, as on the publish stream.
  const handshakeTimeout = config.broker.http?.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const tls = config.broker.tls && { ...readTlsCredentials(config.broker.tls, TLS_VARIABLES), handshakeTimeout };
  const app = await createBrokerApp(BrokerAppModule.register(config.broker), config.httpAdapter, tls);
  onCreated(app);
  const certificates = app.get(TlsCertificates);
  // With TLS, SIGHUP hands HTTPS and the publish stream a renewed certificate without a restart, as nginx does.
  // Exits 0 once closed (1 if closing failed), rather than dying of the signal: a clean stop is not a failure.
  app.enableShutdownHooks(certificates ? SHUTDOWN_SIGNALS : [...SHUTDOWN_SIGNALS, 'SIGHUP'], { useProcessExit: true });
  if (isUnspecifiedAddress(config.host)) {
    const tokens = config.broker.auth?.tokens?.length ?? 0;
    logger.warn(
      `MMMQ_HOST=${config.host} binds every interface: any machine that can route here reaches the broker, and ` +
        `only the ${tokens} configured token(s) keep it out. Bind one interface if that is all clients need.`,
    );
  }
  await app.listen(config.port, config.host);
  const server = app.getHttpServer();
  if (certificates) {
    certificates.attach(server as TlsServer);
    process.on('SIGHUP', () => certificates.reload());
  }
  const { address, port } = server.address() as AddressInfo;
  const scheme = tls ? 'https' : 'http';
  logger.log(`Listening on ${scheme}://${address}:${port}, data in ${config.broker.persistence.rootDir} (${config.httpAdapter})`);
  return app;
}
