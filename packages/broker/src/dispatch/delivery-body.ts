import { DecodedEnvelope } from '../format/message-envelope';

/** What a delivery body says about the attempt, besides the message. */
export interface DeliveryAttemptFields {
  /** This delivery's number, from 1; `redelivered` is `deliveryCount > 1`. */
  deliveryCount: number;
  lease: string;
  /** A NACK of this delivery dead-letters the message (see DeliveryLedger.isLastAttempt). */
  lastAttempt: boolean;
}

/**
 * The delivery body (docs/delivery.md § What the consumer receives): `{"id","topic","content","headers","offset","deliveryCount","redelivered",
 * "publishedAt","lease","lastAttempt"}`, plus `"expiresAt"` and `"priority"` when the message has them — pushed, or one of the messages a fetch answers. The content bytes are
 * copied from the stored payload, so the consumer gets exactly what the producer sent.
 */
export function encodeDelivery(
  envelope: DecodedEnvelope,
  offset: number,
  { deliveryCount, lease, lastAttempt }: DeliveryAttemptFields,
): Buffer {
  const id = envelope.id ?? `${envelope.topic}@${offset}`;
  const head = `{"id":${JSON.stringify(id)},"topic":${JSON.stringify(envelope.topic)},"content":`;
  const tail =
    `,"headers":${JSON.stringify(envelope.headers)},"offset":${offset},"deliveryCount":${deliveryCount},` +
    `"redelivered":${deliveryCount > 1},"publishedAt":${envelope.publishedAt ?? null},"lease":${JSON.stringify(lease)},` +
    `"lastAttempt":${lastAttempt}` +
    (envelope.expiresAt === undefined ? '' : `,"expiresAt":${envelope.expiresAt}`) +
    (envelope.priority === undefined ? '' : `,"priority":${envelope.priority}`) +
    '}';
  return Buffer.concat([Buffer.from(head), envelope.content, Buffer.from(tail)]);
}

/** `{"messages":[…]}` of delivery bodies: a batched push, or a fetch's answer. */
export function encodeDeliveryBatch(bodies: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [BATCH_OPEN];
  bodies.forEach((body, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(body);
  });
  parts.push(BATCH_CLOSE);
  return Buffer.concat(parts);
}

const BATCH_OPEN = Buffer.from('{"messages":[');
const COMMA = Buffer.from(',');
const BATCH_CLOSE = Buffer.from(']}');
