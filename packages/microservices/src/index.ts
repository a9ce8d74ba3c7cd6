export { MmmqClient } from './client/mmmq-client';
export type { MmmqClientOptions } from './client/mmmq-client.options';
export { MmmqRecord, MmmqRecordBuilder, type MmmqRecordOptions } from './client/mmmq-record';
export { RequestReplyNotSupportedError } from './errors/request-reply-not-supported.error';
export { UnsupportedPatternError } from './errors/unsupported-pattern.error';
export { ClientEventsNotSupportedError } from './errors/client-events-not-supported.error';
