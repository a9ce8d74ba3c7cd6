import { MmmqValidationError } from './mmmq-validation-error';

/** A consumer host was neither a valid `{protocol, address, port}` object nor an `http(s)://address:port` URL. */
export class InvalidHostError extends MmmqValidationError {}
