import type { ProduceOptions } from '@mmmq/producer';
import type { ProducerSerializer } from '@nestjs/microservices';
import { MmmqRecord } from './mmmq-record';

/** What one `emit(topic, data)` publishes: the content and the `produce()` options. */
export interface OutgoingEvent {
  content: unknown;
  options: ProduceOptions;
  /** `send()` only: the record's `timeoutMs`. */
  timeoutMs?: number;
}

/**
 * Unwraps an {@link MmmqRecord} (its id, headers and schedule become produce options), then runs the serializer on
 * `{ pattern, data }`: a result with a `data` key publishes that value (so Nest's `IdentitySerializer` publishes
 * `data` itself), any other result is the content as it is.
 */
export function outgoingEvent(topic: string, data: unknown, serializer: ProducerSerializer): OutgoingEvent {
  const record = data instanceof MmmqRecord ? data : undefined;
  const serialized: unknown = serializer.serialize({ pattern: topic, data: record === undefined ? data : record.data });
  const content = typeof serialized === 'object' && serialized !== null && 'data' in serialized ? serialized.data : serialized;
  const options: ProduceOptions = {};
  if (record?.options.id !== undefined) options.id = record.options.id;
  if (record?.options.headers !== undefined) options.headers = record.options.headers;
  if (record?.options.delayMs !== undefined) options.delayMs = record.options.delayMs;
  if (record?.options.deliverAt !== undefined) options.deliverAt = record.options.deliverAt;
  return { content, options, timeoutMs: record?.options.timeoutMs };
}
