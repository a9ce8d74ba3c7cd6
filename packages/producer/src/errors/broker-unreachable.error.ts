import { MmmqError } from '@mmmq/core';

/**
 * One attempt got no answer: the connection failed or broke, or the deadline passed. The broker may still have
 * stored the message, which is why a retry carries the same id. Always retried while attempts remain.
 */
export class BrokerUnreachableError extends MmmqError {}
