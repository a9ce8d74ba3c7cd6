import { MmmqConsumerHealthIndicator } from '@mmmq/consumer';
import type { DynamicModule, INestApplication, INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { BenchConsumerModule, type BenchListener } from './mmmq-nest-modules';

/** Nest's own start-up lines would drown the bench's output. */
export const NEST_LOGGER = ['error', 'warn'] as ('error' | 'warn')[];
/** How long a consumer app may take to register its dispatchers with the (running) broker. */
const REGISTRATION_DEADLINE_MS = 30_000;

/**
 * The bench's consumer Nest app (platform-fastify, `MmmqConsumerModule`) listening on `port`; with `autoRegister` it
 * resolves once its listeners are registered.
 */
export async function startConsumerApp(
  broker: string,
  listeners: BenchListener[],
  port: number,
  options: { autoRegister: boolean },
): Promise<INestApplication> {
  const app = await NestFactory.create(
    BenchConsumerModule.register({ broker, advertisedUrl: `http://127.0.0.1:${port}`, listeners, ...options }),
    new FastifyAdapter(),
    { logger: NEST_LOGGER, bodyParser: false, abortOnError: false },
  );
  await app.listen(port, '127.0.0.1');
  if (options.autoRegister) await registered(app);
  return app;
}

/**
 * A pull consumer (`delivery: 'pull'`, no HTTP server) with the module options `more` and the modules `imports`
 * beside it; resolves once its listeners' dispatchers are registered, so fetching has begun.
 */
export async function startPullConsumerApp(
  broker: string,
  listeners: BenchListener[],
  more: NonNullable<Parameters<typeof BenchConsumerModule.register>[0]['more']>,
  imports: DynamicModule[] = [],
): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(
    BenchConsumerModule.register({ broker, autoRegister: true, listeners, more: { ...more, delivery: 'pull' }, imports }),
    { logger: NEST_LOGGER, abortOnError: false },
  );
  await registered(app);
  return app;
}

/** Resolves once the app's listeners are registered with the broker (in the background after `listen`), so the timing starts with delivery possible. */
export async function registered(app: INestApplicationContext): Promise<void> {
  const health = app.get(MmmqConsumerHealthIndicator);
  const deadline = Date.now() + REGISTRATION_DEADLINE_MS;
  while (health.check().status !== 'up') {
    if (Date.now() > deadline)
      throw new Error(`the consumer app did not register within ${REGISTRATION_DEADLINE_MS} ms: ${health.check().message}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
