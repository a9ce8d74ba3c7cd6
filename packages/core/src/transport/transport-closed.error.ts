import { MmmqError } from '../errors/mmmq-error';

/**
 * The transport's publisher or subscriber was closed (the application is shutting down): nothing was sent, and
 * sending it again through the same publisher cannot help, so the producer does not retry it.
 */
export class TransportClosedError extends MmmqError {}
