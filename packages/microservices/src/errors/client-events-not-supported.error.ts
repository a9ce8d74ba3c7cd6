import { MmmqError } from '@mmmq/core';

/** `MmmqClient.on()` was called: the client has no connection of its own, so no events to listen to. */
export class ClientEventsNotSupportedError extends MmmqError {
  constructor(event: unknown) {
    super(
      `MmmqClient emits no events (asked for ${JSON.stringify(String(event))}): it has no connection of its own, ` +
        'the producer connects per publish and retries by itself. Each emit() Observable reports its own outcome.',
    );
  }
}
