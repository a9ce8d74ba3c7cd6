import { MmmqError } from '@mmmq/core';

/** The publisher or subscriber was closed: nothing more is sent or received through it. */
export class RabbitMqTransportClosedError extends MmmqError {}
