import type { OutgoingMessage } from '../outgoing-message';

/**
 * The JSON body of `POST /mmmq/messages`. The content's JSON text is spliced in as it is, since it was
 * serialised once before the first attempt; the broker stores exactly these bytes.
 */
export function publishBody(message: OutgoingMessage): string {
  const headers = message.headers === undefined ? '' : `,"headers":${JSON.stringify(message.headers)}`;
  const topic = JSON.stringify(message.topic);
  return `{"topic":${topic},"id":${JSON.stringify(message.id)}${headers},"content":${message.content}}`;
}

/** The JSON body of `POST /mmmq/messages/batch`. */
export function publishBatchBody(messages: readonly OutgoingMessage[]): string {
  return `{"messages":[${messages.map(publishBody).join(',')}]}`;
}
