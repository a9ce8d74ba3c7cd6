import { MmmqValidationError } from './mmmq-validation-error';

/** A topic name broke the allow-list. */
export class InvalidTopicError extends MmmqValidationError {}
