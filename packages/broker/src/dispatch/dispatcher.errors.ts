import { Host, MmmqError } from '@mmmq/core';

export class DispatcherNotFoundError extends MmmqError {
  constructor(consumerId: string) {
    super(`No dispatcher for consumerId '${consumerId}'`);
  }
}

export class DuplicateConsumerIdError extends MmmqError {
  constructor(consumerId: string, detail?: string) {
    super(`A dispatcher for consumerId '${consumerId}' already exists${detail ? ` ${detail}` : ''}`);
  }
}

export class PushHostNotFoundError extends MmmqError {
  constructor(consumerId: string, host: Host) {
    super(`Dispatcher '${consumerId}' has no push host ${host.toUrl()}`);
  }
}
