import { TransportClosedError } from '@mmmq/core';

/** The publisher or subscriber was closed: nothing more is sent or received through it. */
export class RabbitMqTransportClosedError extends TransportClosedError {}
