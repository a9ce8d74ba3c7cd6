import {
  CLAIM_CHECK_HEADER,
  CLAIM_CHECK_VERSION,
  ClaimCheckReference,
  fetchClaimCheck,
  ObjectStore,
  parseClaimCheckReference,
} from '@mmmq/core';
import type { ConsumerDelivery } from '../listener/consumer-delivery';

/** The delivery as the handler sees it (its content fetched when it was a claim check), or why it can never be. */
export type ClaimCheckOutcome = { valid: true; delivery: ConsumerDelivery } | { valid: false; reason: string };

/**
 * Turns a claim check (a delivery with the `mmmq-claim-check` header) back into the message the producer sent: checks
 * the reference, its expiry before asking the store, its size and SHA-256 digest after, and parses the content. Any
 * of these failing is a verdict on the message, returned as `valid: false` so that it is dead-lettered at once with
 * the reason; so is a claim check reaching a consumer without the `claimCheck` option. A failure of the store itself
 * (I/O, network) is thrown: the handler did not run, and the delivery is retried like a failed handler.
 * Deliveries without the header pass unchanged.
 */
export class ClaimCheckResolver {
  constructor(
    private readonly store: ObjectStore | undefined,
    private readonly maxBytes?: number,
  ) {}

  /** A delivery without the header is answered at once, with no promise per message. */
  resolve(delivery: ConsumerDelivery): ClaimCheckOutcome | Promise<ClaimCheckOutcome> {
    const version = delivery.headers?.[CLAIM_CHECK_HEADER];
    if (version === undefined) return { valid: true, delivery };
    return this.fetch(delivery, version);
  }

  private async fetch(delivery: ConsumerDelivery, version: unknown): Promise<ClaimCheckOutcome> {
    // A relay that writes every header as text (a change-data-capture pipeline, say) sends "1": the same version.
    if (String(version) !== String(CLAIM_CHECK_VERSION)) {
      return invalid(`its ${CLAIM_CHECK_HEADER} header is ${JSON.stringify(version)}; this consumer reads version ${CLAIM_CHECK_VERSION}`);
    }
    let reference: ClaimCheckReference;
    try {
      reference = parseClaimCheckReference(delivery.content);
    } catch (error) {
      return invalid((error as Error).message);
    }
    if (this.store === undefined) return invalid('the consumer option claimCheck is not set, so the content cannot be fetched');
    const fetched = await fetchClaimCheck(this.store, reference, { maxBytes: this.maxBytes });
    if (!fetched.valid) return invalid(fetched.reason);
    let content: unknown;
    try {
      content = JSON.parse(fetched.bytes.toString('utf8'));
    } catch (error) {
      return invalid(`its stored content is not JSON: ${(error as Error).message}`);
    }
    const { [CLAIM_CHECK_HEADER]: _marker, ...headers } = delivery.headers;
    return { valid: true, delivery: { ...delivery, content, headers } };
  }
}

function invalid(problem: string): ClaimCheckOutcome {
  return { valid: false, reason: `claim check: ${problem}` };
}
