/**
 * The transport id of `MmmqServer`: `@EventPattern('order.*', MMMQ_TRANSPORT)` binds a handler to MMMQ alone when
 * an application runs several transports.
 */
export const MMMQ_TRANSPORT: unique symbol = Symbol('MMMQ_TRANSPORT');
