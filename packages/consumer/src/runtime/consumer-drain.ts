import type { Logger } from '@nestjs/common';
import type { FrontHandler } from '../handling/front-handler';
import type { TransportConsumer } from '../transport/transport-consumer';

/** What a consumer stops, in this order, when its application shuts down. */
export interface DrainSteps {
  /** The listeners' subscriptions, on the MMMQ broker or another transport. */
  transport: Pick<TransportConsumer, 'stopReceiving' | 'close'>;
  frontHandler: FrontHandler;
  /** The HTTP server's requests in flight: answered within `timeoutMs` (DeliveryServerGate, HttpShutdownGate). */
  requestsAnswered(timeoutMs: number): Promise<void>;
  timeoutMs: number;
  logger: Logger;
}

/**
 * Stops taking messages and lets those in flight finish, before anything the handlers use is closed. The subscriber
 * stops receiving first: pull listeners stop fetching, pushes are answered 503 (which the broker does not count as a
 * delivery), a transport hands over no more. Meanwhile the HTTP server lets the requests in flight finish. Once the
 * handlers are done (or `timeoutMs` passed) the subscriber closes: pull listeners send their last acknowledgements and
 * release what they hold, this application's host leaves the dispatchers it joined, a transport settles what is left
 * (what the handlers did not settle is delivered again).
 */
export async function drainConsumer({ transport, frontHandler, requestsAnswered, timeoutMs, logger }: DrainSteps): Promise<void> {
  await transport.stopReceiving();
  const { running, waiting } = frontHandler.load;
  if (running + waiting > 0) logger.log(`Shutting down: waiting up to ${timeoutMs} ms for ${running} running handler(s)`);
  // The handlers' timer first: a handler cut off at the timeout is answered 500 before the gate's own
  // deadline, which would answer it 503 ("not handled").
  const handlersDone = frontHandler.close(timeoutMs);
  await Promise.all([handlersDone, requestsAnswered(timeoutMs)]);
  await transport.close();
}
