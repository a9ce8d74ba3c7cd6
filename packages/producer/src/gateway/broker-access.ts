import type { TlsClientOptions } from '@mmmq/core';

/** How the MMMQ broker's publishers prove who they are and whom they trust. */
export interface BrokerAccess {
  /** Sent as `Authorization: Bearer <token>` over HTTP, as the AUTH request on the stream. */
  token?: string;
  /** Certificates to trust for an `https://` or `mmmqs://` broker. */
  tls?: TlsClientOptions;
}
