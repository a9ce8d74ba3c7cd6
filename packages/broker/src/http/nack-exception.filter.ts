import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { toNackResponse } from './nack-response';
import { logIfUnexpected, nackBody, RETRY_AFTER_HEADER } from './nack-writer';

/**
 * Answers every failure of the broker's routes with `{"acknowledgement":"NACK","message":…}`, so a producer
 * never has to parse an HTML error page or guess whether its message was stored.
 */
@Catch()
export class NackExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(NackExceptionFilter.name);

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const adapter = this.adapterHost.httpAdapter;
    const context = host.switchToHttp();
    const response = context.getResponse<unknown>();
    const nack = toNackResponse(error);
    logIfUnexpected(this.logger, nack, context.getRequest<{ method?: string; url?: string }>(), error);
    // Shutdown answered it already (503, HttpShutdownGate in @mmmq/core); what failed since is the body it cut short.
    if (alreadyAnswered(response)) return;
    if (nack.retryAfterSeconds !== undefined && !hasHeader(response, RETRY_AFTER_HEADER)) {
      adapter.setHeader(response, RETRY_AFTER_HEADER, String(nack.retryAfterSeconds));
    }
    for (const [name, value] of Object.entries(nack.headers ?? {})) adapter.setHeader(response, name, value);
    adapter.reply(response, nackBody(nack), nack.status);
  }
}

/** Express' response is Node's; fastify's reply wraps it as `raw`. */
function alreadyAnswered(response: unknown): boolean {
  const raw = (response as { raw?: unknown }).raw ?? response;
  return (raw as { headersSent?: boolean }).headersSent === true;
}

function hasHeader(response: unknown, name: string): boolean {
  const getHeader = (response as { getHeader?: (name: string) => unknown }).getHeader;
  return typeof getHeader === 'function' && getHeader.call(response, name) !== undefined;
}
