import type { ConsumerAcknowledgement } from '@mmmq/core';

/**
 * What a push is answered with: JSON, with `acknowledgement` (one) or `acknowledgements` (a batch). A batch whose
 * handlers settled some messages already goes out as a stream instead (SettlementStreamWriter).
 */
export interface PushAnswer {
  status: number;
  body: ConsumerAcknowledgement | { acknowledgements: ConsumerAcknowledgement[] };
  headers: Record<string, string>;
}
