import { MmmqError } from '../errors/mmmq-error';
import { MmmqValidationError } from '../errors/mmmq-validation-error';

/** A message marked as a claim check carries no valid {@link ClaimCheckReference}: it can never be resolved. */
export class InvalidClaimCheckReferenceError extends MmmqValidationError {}

/** An object key that a store must refuse: not a plain name (a path, `..`, a hidden file, too long). */
export class InvalidObjectKeyError extends MmmqValidationError {}

/** The store has no object under this key (never written, deleted, or removed after expiry). */
export class ObjectNotFoundError extends MmmqError {
  constructor(readonly key: string) {
    super(`No object is stored under key ${JSON.stringify(key)}`);
  }
}
