import type { ClientRequest, IncomingMessage } from 'node:http';
import { SETTLEMENT_STREAM_TYPE } from '@mmmq/core';

/** What reads a streamed reply: a batch's (SettlementStreamParser) or a shared push's (SharedSettlementParser). */
export interface StreamedReplyParser {
  push(chunk: Buffer): void;
  readonly settledCount: number;
}

/** What a push resolves with once a streamed reply ended (its lines went to the parser as they arrived). */
export const STREAMED = Symbol('streamed');

/** Whether a `200` reply to a batched push is a streamed one (docs/http-api.md, "Streamed settlement"). */
export function isStreamedReply(response: IncomingMessage): boolean {
  const type = response.headers['content-type'];
  return response.statusCode === 200 && type !== undefined && type.toLowerCase().startsWith(SETTLEMENT_STREAM_TYPE);
}

/**
 * Feeds a streamed reply's chunks to `parser` as they arrive, so each line settles its message at once; a reply
 * longer than `maxBytes`, or a line that settles nothing, fails the push (the request is destroyed with why).
 */
export function readStreamedReply(
  request: ClientRequest,
  response: IncomingMessage,
  parser: StreamedReplyParser,
  maxBytes: number,
  /** A chunk settled a message not settled before: the consumer is making progress (bounded: once per message). */
  onProgress: () => void,
  onEnd: () => void,
  /**
   * The reply is not one: told here, then the request is cut off without an error — once the last chunk is in, the
   * socket may be back in the agent's pool, where an error given to destroy() would be emitted with nobody listening.
   */
  onFailure: (error: Error) => void,
): void {
  let length = 0;
  let failed = false;
  const fail = (error: Error) => {
    failed = true;
    onFailure(error);
    request.destroy();
  };
  response.on('data', (chunk: Buffer) => {
    if (failed) return;
    length += chunk.length;
    if (length > maxBytes) return fail(new Error(`reply longer than ${maxBytes} bytes`));
    const settled = parser.settledCount;
    try {
      parser.push(chunk);
    } catch (error) {
      fail(error as Error);
      return;
    }
    if (parser.settledCount > settled) onProgress();
  });
  response.on('end', () => failed || onEnd());
}
