import { InvalidMessageError, InvalidTopicError } from '@mmmq/core';
import { HttpException, HttpStatus } from '@nestjs/common';
import { RETRY_AFTER_SECONDS } from '@mmmq/core';
import { toNackResponse } from '../../src/http/nack-response';
import {
  IncompleteRequestBodyError,
  PayloadTooLargeError,
  RequestBodyConsumedError,
  UnsupportedContentEncodingError,
} from '../../src/publish/publish.errors';
import { StorageError, StorageUnavailableError, TopicNameConflictError } from '../../src/storage';
import { SubscriptionBacklogFullError } from '../../src/publish/publish.errors';

describe('toNackResponse', () => {
  it.each<[Error, number]>([
    [new InvalidTopicError('bad topic'), 400],
    [new InvalidMessageError('bad message'), 400],
    [new IncompleteRequestBodyError('cut short'), 400],
    [new TopicNameConflictError('case'), 409],
    [new PayloadTooLargeError('big'), 413],
    [new UnsupportedContentEncodingError('gzip'), 415],
  ])('answers %p with %i and its message', (error, status) => {
    expect(toNackResponse(error)).toEqual({ status, message: error.message, unexpected: false });
  });

  it('asks producers to retry storage failures later', () => {
    for (const error of [new StorageError('io'), new StorageUnavailableError('faulted')]) {
      expect(toNackResponse(error)).toEqual({
        status: 503,
        message: error.message,
        retryAfterSeconds: RETRY_AFTER_SECONDS,
        unexpected: false,
      });
    }
  });

  it('answers a full subscription backlog with 429 and Retry-After in whole seconds, naming the consumer and the limit', () => {
    const error = new SubscriptionBacklogFullError('order.created', 'billing', 1000, 1000, 1500);
    expect(toNackResponse(error)).toEqual({ status: 429, message: error.message, retryAfterSeconds: 2, unexpected: false });
    expect(error.message).toContain('consumer billing has 1000 messages not settled');
    expect(error.message).toContain("dispatcher's maxBacklog is 1000");
  });

  it("keeps the status of the host app's HTTP exceptions, with Retry-After on 429", () => {
    const throttled = new HttpException('Too Many Requests', HttpStatus.TOO_MANY_REQUESTS);
    expect(toNackResponse(throttled)).toMatchObject({ status: 429, retryAfterSeconds: RETRY_AFTER_SECONDS });
    expect(toNackResponse(new HttpException('Forbidden', 403))).toMatchObject({ status: 403, message: 'Forbidden' });
  });

  it('explains a consumed body, which is a deployment mistake, and flags it for the log', () => {
    const error = new RequestBodyConsumedError('use bodyParser: false');
    expect(toNackResponse(error)).toEqual({ status: 500, message: error.message, unexpected: true });
  });

  it('hides everything about an unexpected error', () => {
    const nack = toNackResponse(new TypeError('secret path /var/lib/x'));
    expect(nack).toMatchObject({ status: 500, unexpected: true });
    expect(nack.message).not.toMatch(/secret|\/var/);
  });
});
