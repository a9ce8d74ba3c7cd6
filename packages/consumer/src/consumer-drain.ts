import type { Logger } from '@nestjs/common';
import type { FrontHandler } from './handling/front-handler';
import type { PullConsumer } from './pull/pull-consumer';
import type { DispatcherRegistrar } from './registration/dispatcher-registrar';
import type { TransportConsumer } from './transport/transport-consumer';

/** What a consumer stops, in this order, when its application shuts down. */
export interface DrainSteps {
  pull: PullConsumer;
  /** The listeners' subscriptions on a transport other than the MMMQ broker, if any. */
  transport?: Pick<TransportConsumer, 'stopReceiving' | 'close'>;
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
 * application's host leaves the dispatchers it joined. A transport stops receiving first too, and is closed once the
 * handlers are done (what they did not settle is delivered again).
 */
export async function drainConsumer({
  pull,
  transport,
  frontHandler,
  requestsAnswered,
  registrar,
  timeoutMs,
  logger,
}: DrainSteps): Promise<void> {
  await Promise.all([pull.stopFetching(), transport?.stopReceiving()]);
  const { running, waiting } = frontHandler.load;
  if (running + waiting > 0) logger.log(`Shutting down: waiting up to ${timeoutMs} ms for ${running} running handler(s)`);
  // The handlers' timer first: a handler cut off at the timeout is answered 500 before the gate's own
  // deadline, which would answer it 503 ("not handled").
  const handlersDone = frontHandler.close(timeoutMs);
  await Promise.all([handlersDone, requestsAnswered(timeoutMs)]);
  await pull.finish();
  await transport?.close();
  await registrar.leaveAll();
}
