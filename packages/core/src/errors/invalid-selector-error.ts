import { MmmqValidationError } from './mmmq-validation-error';

/** A selector that does not parse; `position` is the 1-based character where the error was found. */
export class InvalidSelectorError extends MmmqValidationError {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}
