import { randomUUID } from 'node:crypto';
import { CLAIM_CHECK_HEADER, CLAIM_CHECK_VERSION, ClaimCheckReference, sha256Hex } from '@mmmq/core';
import type { OutgoingMessage } from '../outgoing-message';
import type { ResolvedClaimCheck } from './claim-check.options';

/**
 * Replaces a content larger than the threshold by a claim check: the content's bytes are written to the store under
 * a new random key, and the message carries a {@link ClaimCheckReference} (digest, size, expiry) instead, marked by
 * the `mmmq-claim-check` header. Smaller contents pass unchanged, synchronously.
 *
 * The reference is made once, before the first attempt, so every retry sends the same reference.
 */
export class ClaimCheckOffloader {
  /** Per topic, the last message whose turn depends on a write: later messages of the topic wait for it. */
  private readonly pending = new Map<string, Promise<unknown>>();

  constructor(private readonly options: ResolvedClaimCheck) {}

  /**
   * The message to send: `message` itself, at once, when it is small and no earlier message of its topic is still
   * being stored; otherwise a promise that settles after those earlier messages did, so `produce()` keeps call order.
   */
  prepare(message: OutgoingMessage): OutgoingMessage | Promise<OutgoingMessage> {
    const before = this.pending.get(message.topic);
    if (before === undefined && !this.isLarge(message)) return message;
    const ready = (async () => {
      await before?.catch(() => undefined);
      return this.isLarge(message) ? this.offload(message) : message;
    })();
    this.pending.set(message.topic, ready);
    const forget = () => {
      if (this.pending.get(message.topic) === ready) this.pending.delete(message.topic);
    };
    ready.then(forget, forget);
    return ready;
  }

  /** Every message of an atomic batch, stored as needed; the batch is sent as one, so no order is at stake. */
  prepareBatch(messages: OutgoingMessage[]): Promise<OutgoingMessage[]> {
    return Promise.all(messages.map((message) => (this.isLarge(message) ? this.offload(message) : message)));
  }

  private isLarge(message: OutgoingMessage): boolean {
    const { thresholdBytes } = this.options;
    // Each UTF-16 unit is 1 to 3 UTF-8 bytes: most contents are decided without counting.
    if (message.content.length > thresholdBytes) return true;
    if (message.content.length * 3 <= thresholdBytes) return false;
    return Buffer.byteLength(message.content, 'utf8') > thresholdBytes;
  }

  private async offload(message: OutgoingMessage): Promise<OutgoingMessage> {
    const bytes = Buffer.from(message.content, 'utf8');
    const reference: ClaimCheckReference = {
      version: CLAIM_CHECK_VERSION,
      key: randomUUID(),
      sha256: sha256Hex(bytes),
      size: bytes.length,
      expiresAt: Date.now() + this.options.ttlMs,
    };
    await this.options.store.put(reference.key, bytes, reference);
    return {
      ...message,
      headers: { ...message.headers, [CLAIM_CHECK_HEADER]: CLAIM_CHECK_VERSION },
      content: JSON.stringify(reference),
    };
  }
}
