import { MmmqError } from '@mmmq/core';

/** A seek refused (409) because another member holds the exclusive subscription; `force: true` seeks anyway. */
export class SubscriptionLockedError extends MmmqError {
  constructor(consumerId: string, topic: string, holder: string) {
    super(
      `The subscription of consumer '${consumerId}' to topic '${topic}' is exclusive and member ${holder} receives from it; ` +
        'nothing was moved. Seek as that member ("member"), or with "force": true',
    );
  }
}
