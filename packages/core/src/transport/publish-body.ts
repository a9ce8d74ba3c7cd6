import type { TransportMessage } from './transport-message';

/**
 * The JSON body of `POST /mmmq/messages`. The content's JSON text is spliced in as it is, since it was
 * serialised once before the first attempt; the broker stores exactly these bytes.
 */
export function publishBody(message: TransportMessage): string {
  const headers = message.headers === undefined ? '' : `,"headers":${JSON.stringify(message.headers)}`;
  const properties =
    (message.ttlMs === undefined ? '' : `,"ttlMs":${message.ttlMs}`) +
    (message.expiresAt === undefined ? '' : `,"expiresAt":${message.expiresAt}`) +
    (message.priority === undefined ? '' : `,"priority":${message.priority}`) +
    (message.delayMs === undefined ? '' : `,"delayMs":${message.delayMs}`) +
    (message.deliverAt === undefined ? '' : `,"deliverAt":${JSON.stringify(message.deliverAt)}`) +
    (message.deliveryMode === undefined ? '' : `,"deliveryMode":"${message.deliveryMode}"`);
  const topic = JSON.stringify(message.topic);
  return `{"topic":${topic},"id":${JSON.stringify(message.id)}${headers}${properties},"content":${message.content}}`;
}

/**
 * The JSON body of `POST /mmmq/messages/batch`, as parts to write one after the other. A batch is often hundreds
 * of KiB, and joining it into one string first costs more than the writes: V8 allocates strings over 128 KiB
 * in its large-object space, which measured ~3 ms per MiB here.
 */
export function publishBatchBody(messages: readonly TransportMessage[]): string[] {
  const parts = ['{"messages":['];
  messages.forEach((message, i) => parts.push(i === 0 ? publishBody(message) : `,${publishBody(message)}`));
  parts.push(']}');
  return parts;
}
