import { MmmqError } from '@mmmq/core';

/** A `MmmqBrokerOptions` value (or the environment variable behind it) is unusable; the broker refuses to start. */
export class InvalidBrokerOptionsError extends MmmqError {}
