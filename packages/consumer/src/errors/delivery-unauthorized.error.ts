import { MmmqError } from '@mmmq/core';

/**
 * With `signingSecrets` set, a push was not signed with one of them (missing or malformed headers, a signature
 * that matches none, a timestamp outside the tolerance); it is answered with 401 and not handled.
 */
export class DeliveryUnauthorizedError extends MmmqError {}
