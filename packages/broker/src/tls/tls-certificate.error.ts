import { MmmqError } from '@mmmq/core';

/** A TLS key or certificate file that cannot be read, parsed, or that does not match its counterpart. */
export class TlsCertificateError extends MmmqError {}
