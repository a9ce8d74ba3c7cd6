import { MmmqError } from './mmmq-error';

/** Input from outside (HTTP body, config file, caller) was rejected; maps to a 400, never a retry. */
export class MmmqValidationError extends MmmqError {}
