import { createHash } from 'node:crypto';

/**
 * The `webhook-id` of a push: the same on every attempt to deliver the same messages of a topic to a consumer —
 * retries, and resends after a restart — and different for anything else. Receivers may use it to recognise a
 * repeat. Offsets, not producer message ids, make it: offsets are unique within a topic, message ids need not be.
 *
 * - one message: `{consumerId}:{topic}:{offset}`
 * - consecutive messages: `{consumerId}:{topic}:{first}-{last}`
 * - the rest of a batch after some of it was acknowledged: `{consumerId}:{topic}:{first}-{last}~{hash}`, the hash
 *   (16 hex digits of SHA-256) over the offsets, so that two different subsets never share an id
 */
export function pushIdOf(consumerId: string, topic: string, offsets: readonly number[]): string {
  const first = offsets[0];
  const last = offsets[offsets.length - 1];
  const prefix = `${consumerId}:${topic}:`;
  if (offsets.length === 1) return `${prefix}${first}`;
  if (last - first === offsets.length - 1) return `${prefix}${first}-${last}`;
  const hash = createHash('sha256').update(offsets.join(',')).digest('hex').slice(0, 16);
  return `${prefix}${first}-${last}~${hash}`;
}
