import { MmmqError } from '@mmmq/core';

/** A topic that does not exist (yet): 404. */
export class TopicNotFoundError extends MmmqError {
  constructor(readonly topic: string) {
    super(`No topic '${topic}'`);
  }
}
