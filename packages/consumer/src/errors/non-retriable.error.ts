import { MmmqError } from '@mmmq/core';

/**
 * Thrown or returned by a listener when handling the message again cannot succeed (bad data, a business
 * rule that will never pass). The consumer answers `NACK` with `retry: false`, and the broker moves the
 * message to the dead-letter topic at once instead of retrying it.
 */
export class NonRetriableError extends MmmqError {}
