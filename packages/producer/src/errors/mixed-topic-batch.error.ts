import { MmmqValidationError } from '@mmmq/core';

/**
 * A batch named more than one topic. The broker commits a batch as one write to one topic's log, so it would
 * refuse the batch as a whole; the producer refuses it before sending anything.
 */
export class MixedTopicBatchError extends MmmqValidationError {}
