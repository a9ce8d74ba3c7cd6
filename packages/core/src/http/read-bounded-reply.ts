import type { ClientRequest, IncomingMessage } from 'node:http';

/**
 * Collects the body of `response` and hands its chunks to `onEnd` once it ended. A body growing past `maxBytes`
 * destroys `request` with an error instead (its `error` listener reports it), so a broken or hostile peer cannot make
 * the caller buffer without bound.
 */
export function readBoundedReply(
  request: ClientRequest,
  response: IncomingMessage,
  maxBytes: number,
  onEnd: (chunks: Buffer[]) => void,
): void {
  const chunks: Buffer[] = [];
  let length = 0;
  response.on('data', (chunk: Buffer) => {
    length += chunk.length;
    if (length > maxBytes) request.destroy(new Error(`reply longer than ${maxBytes} bytes`));
    else chunks.push(chunk);
  });
  response.on('end', () => onEnd(chunks));
}
