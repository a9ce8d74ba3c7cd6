import { MmmqValidationError } from './mmmq-validation-error';

/**
 * A selector that does not parse: `Invalid selector at position {position}: {reason}`. `position` is the 1-based
 * character where the error was found; `reason` says what was expected there, for callers that name the field first.
 */
export class InvalidSelectorError extends MmmqValidationError {
  constructor(
    readonly reason: string,
    readonly position: number,
  ) {
    super(`Invalid selector at position ${position}: ${reason}`);
  }
}
