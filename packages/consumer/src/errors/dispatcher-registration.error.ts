import { MmmqError } from '@mmmq/core';

/** A listener's dispatcher could not be registered with the broker; the application fails to start. */
export class DispatcherRegistrationError extends MmmqError {}
