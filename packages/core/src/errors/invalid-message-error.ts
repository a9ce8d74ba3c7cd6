import { MmmqValidationError } from './mmmq-validation-error';

/** A published message had a malformed field (id, headers, ...). */
export class InvalidMessageError extends MmmqValidationError {}
