import { DecodedEnvelope } from '../publish/message-envelope';

/**
 * The push body of SPEC §3: `{"id","topic","content","headers","offset","deliveryCount","redelivered","publishedAt"}`.
 * The content bytes are copied from the stored payload, so the consumer gets exactly what the producer sent.
 */
export function encodeDelivery(
  envelope: DecodedEnvelope,
  offset: number,
  deliveryCount: number,
  redelivered: boolean,
): Buffer {
  const id = envelope.id ?? `${envelope.topic}@${offset}`;
  const head = `{"id":${JSON.stringify(id)},"topic":${JSON.stringify(envelope.topic)},"content":`;
  const tail =
    `,"headers":${JSON.stringify(envelope.headers)},"offset":${offset},"deliveryCount":${deliveryCount},` +
    `"redelivered":${redelivered},"publishedAt":${envelope.publishedAt ?? null}}`;
  return Buffer.concat([Buffer.from(head), envelope.content, Buffer.from(tail)]);
}
