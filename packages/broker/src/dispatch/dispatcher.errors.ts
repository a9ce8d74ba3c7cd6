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

/** A consumer-scoped request named a topic the consumer has no subscription to (its patterns do not match it). */
export class SubscriptionNotFoundError extends MmmqError {
  constructor(consumerId: string, topic: string) {
    super(
      `Consumer '${consumerId}' has no subscription to topic '${topic}' (none of its patterns matches it, or the topic does not exist)`,
    );
  }
}

export class PushHostNotFoundError extends MmmqError {
  constructor(consumerId: string, host: Host) {
    super(`Dispatcher '${consumerId}' has no push host ${host.toUrl()}`);
  }
}

/** A member refused because its consumer has `maxMembers` live members already (HTTP 409). */
export class MaxMembersReachedError extends MmmqError {
  constructor(where: string, maxMembers: number, members: readonly string[], member: string) {
    super(
      `${where}: maxMembers is ${maxMembers} and ${members.length} member(s) are in (${members.join(', ')}); member ${member} ` +
        `is refused. Raise maxMembers, or let a member leave (a pull member silent for ackTimeoutMs is forgotten)`,
    );
  }
}
