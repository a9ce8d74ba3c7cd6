import { MmmqValidationError } from './mmmq-validation-error';

/** A consumer id broke the allow-list (it becomes a file name). */
export class InvalidConsumerIdError extends MmmqValidationError {}
