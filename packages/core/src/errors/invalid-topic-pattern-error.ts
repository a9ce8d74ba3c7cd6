import { MmmqValidationError } from './mmmq-validation-error';

/** A topic pattern was blank or malformed. */
export class InvalidTopicPatternError extends MmmqValidationError {}
