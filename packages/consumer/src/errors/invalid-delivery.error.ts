import { MmmqError } from '@mmmq/core';

/** A request to the delivery endpoint is not a delivery (bad JSON, missing fields); it is answered with 400. */
export class InvalidDeliveryError extends MmmqError {}
