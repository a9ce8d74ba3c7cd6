import type { IncomingMessage, ServerResponse } from 'node:http';
import { Acknowledgement, BrokerAcknowledgement, writeJson } from '@mmmq/core';
import type { Logger } from '@nestjs/common';
import { NackResponse, toNackResponse } from './nack-response';

/** The header a retryable NACK (429, 503) carries. */
export const RETRY_AFTER_HEADER = 'Retry-After';

/** The body of a NACK. */
export function nackBody(nack: NackResponse): BrokerAcknowledgement {
  return { acknowledgement: Acknowledgement.NACK, message: nack.message };
}

/** Logs a failure that is a bug or a misconfiguration with its stack; an expected refusal is not logged. */
export function logIfUnexpected(logger: Logger, nack: NackResponse, request: { method?: string; url?: string }, error: unknown): void {
  if (!nack.unexpected) return;
  const description = error instanceof Error ? error.message : String(error);
  logger.error(`${request.method} ${request.url} failed: ${description}`, (error as Error)?.stack);
}

/**
 * Answers a failed request on Node's own response, as `NackExceptionFilter` answers one of a Nest route: the same
 * status, headers and body. For the routes served before the framework (`PublishRoutes`).
 */
export function writeNack(request: IncomingMessage, response: ServerResponse, error: unknown, logger: Logger): void {
  const nack = toNackResponse(error);
  logIfUnexpected(logger, nack, request, error);
  // Shutdown answered it already (503, HttpShutdownGate in @mmmq/core); what failed since is the body it cut short.
  if (response.headersSent) return;
  const headers: Record<string, string> = { ...nack.headers };
  if (nack.retryAfterSeconds !== undefined) headers[RETRY_AFTER_HEADER] = String(nack.retryAfterSeconds);
  writeJson(response, nack.status, nackBody(nack), headers);
}
