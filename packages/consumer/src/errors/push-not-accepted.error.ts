import { MmmqError } from '@mmmq/core';

/**
 * A push reached a consumer configured with `delivery: 'pull'`: it takes messages only from its own fetches, so a
 * pushed one (forged, or from a stale dispatcher) is answered with 404 and never handled.
 */
export class PushNotAcceptedError extends MmmqError {}
