import type { Logger } from '@nestjs/common';
import type { FrontHandler } from './handling/front-handler';
import type { PullConsumer } from './pull/pull-consumer';
import type { DispatcherRegistrar } from './registration/dispatcher-registrar';

/** What a consumer stops, in this order, when its application shuts down. */
export interface DrainSteps {
  pull: PullConsumer;
  frontHandler: FrontHandler;
  /** The HTTP server's requests in flight: answered within `timeoutMs` (DeliveryServerGate, HttpShutdownGate). */
  requestsAnswered(timeoutMs: number): Promise<void>;
  registrar: DispatcherRegistrar;
  timeoutMs: number;
  logger: Logger;
}

/**
 * Stops taking messages and lets those in flight finish, before anything the handlers use is closed. Meanwhile the
 * HTTP server answers new pushes 503 (which the broker does not count as a delivery) and lets those in flight finish.
 * Pull listeners stop fetching first, and send their last acknowledgements once the handlers are done. Then this
 * application's host leaves the dispatchers it joined.
 */
export async function drainConsumer({ pull, frontHandler, requestsAnswered, registrar, timeoutMs, logger }: DrainSteps): Promise<void> {
  await pull.stopFetching();
  const { running, waiting } = frontHandler.load;
  if (running + waiting > 0) logger.log(`Shutting down: waiting up to ${timeoutMs} ms for ${running} running handler(s)`);
  // The handlers' timer first: a handler cut off at the timeout is answered 500 before the gate's own
  // deadline, which would answer it 503 ("not handled").
  const handlersDone = frontHandler.close(timeoutMs);
  await Promise.all([handlersDone, requestsAnswered(timeoutMs)]);
  await pull.finish();
  await registrar.leaveAll();
}
