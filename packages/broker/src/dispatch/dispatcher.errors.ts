import { MmmqError } from '@mmmq/core';

export class DispatcherNotFoundError extends MmmqError {
  constructor(consumerId: string) {
    super(`No dispatcher for consumerId '${consumerId}'`);
  }
}

export class DuplicateConsumerIdError extends MmmqError {
  constructor(consumerId: string) {
    super(`A dispatcher for consumerId '${consumerId}' already exists`);
  }
}
