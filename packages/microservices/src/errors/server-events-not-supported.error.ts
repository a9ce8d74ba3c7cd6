import { MmmqError } from '@mmmq/core';

/** `MmmqServer.on()` was called: the transport emits no events of its own; its `status` Observable tells its state. */
export class ServerEventsNotSupportedError extends MmmqError {
  constructor(event: unknown) {
    super(`MmmqServer has no event ${JSON.stringify(String(event))} to listen to; subscribe to its status Observable instead`);
  }
}
