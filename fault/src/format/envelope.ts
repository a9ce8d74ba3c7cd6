/**
 * The stored payload is `{"id":…,"topic":…,"publishedAt":…,"headers":{…},"content":<the producer's bytes>}`
 * (docs/storage.md). The checker reads the small fields with JSON.parse and checks the content byte for byte:
 * the payload must end with `"content":` + exactly the bytes that were published + `}`.
 */
export interface EnvelopeFields {
  id: string;
  topic: string;
}

const CONTENT_KEY = Buffer.from('"content":');
const CLOSING_BRACE = Buffer.from('}');

/** Payloads already read; a payload of a segment that did not change is the same Buffer next time. */
const read = new WeakMap<Buffer, EnvelopeFields | undefined>();

/** The id and topic of a stored payload, or undefined when it is not such an envelope. */
export function readEnvelope(payload: Buffer): EnvelopeFields | undefined {
  if (read.has(payload)) return read.get(payload);
  const fields = parseEnvelope(payload);
  read.set(payload, fields);
  return fields;
}

function parseEnvelope(payload: Buffer): EnvelopeFields | undefined {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, topic } = value as Record<string, unknown>;
  if (typeof id !== 'string' || typeof topic !== 'string') return undefined;
  return { id, topic };
}

/** Whether the stored payload carries exactly these content bytes. */
export function envelopeCarries(payload: Buffer, content: Buffer): boolean {
  const expectedTail = Buffer.concat([CONTENT_KEY, content, CLOSING_BRACE]);
  return payload.length >= expectedTail.length && payload.subarray(payload.length - expectedTail.length).equals(expectedTail);
}
