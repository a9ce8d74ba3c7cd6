import { MmmqError } from './mmmq-error';

/**
 * Two modules of one application would take the broker's pushes for the same consumer id (an `MmmqConsumerModule`
 * listener and an `MmmqServer` handler, say): only the first would ever receive them. Thrown at bootstrap.
 */
export class PushRouteConflictError extends MmmqError {}
