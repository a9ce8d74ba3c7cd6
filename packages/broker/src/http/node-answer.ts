import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeJson } from '@mmmq/core';
import type { Logger } from '@nestjs/common';
import { writeNack } from './nack-writer';

const OK = 200;
/** What Nest's `StreamableFile` of `{ type: 'application/json' }` answers; bytes the broker encoded itself. */
const JSON_BYTES_TYPE = 'application/json';

/**
 * Answers a request of a route served at the level of Node's server with what `work` resolves to: 200 with it as
 * JSON (a Buffer: JSON the broker encoded itself, sent as is), or the NACK of whatever it threw, as the broker's Nest
 * routes answer (`NackExceptionFilter`). Never rejects.
 */
export async function answerWith(
  request: IncomingMessage,
  response: ServerResponse,
  logger: Logger,
  work: () => Promise<unknown>,
): Promise<void> {
  try {
    const answer = await work();
    if (!Buffer.isBuffer(answer)) {
      writeJson(response, OK, answer);
      return;
    }
    response.writeHead(OK, { 'Content-Type': JSON_BYTES_TYPE, 'Content-Length': answer.length });
    response.end(answer);
  } catch (error) {
    writeNack(request, response, error, logger);
  }
}

/** The path of a request target, without its query string. */
export function pathOf(request: IncomingMessage): string {
  const url = request.url ?? '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
