import { Acknowledgement, BrokerAcknowledgement } from '@mmmq/core';
import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { toNackResponse } from './nack-response';

const RETRY_AFTER_HEADER = 'Retry-After';

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
    if (nack.unexpected) {
      const request = context.getRequest<{ method?: string; url?: string }>();
      this.logger.error(`${request.method} ${request.url} failed: ${describe(error)}`, (error as Error)?.stack);
    }
    // Shutdown answered it already (503, HttpShutdownGate in @mmmq/core); what failed since is the body it cut short.
    if (alreadyAnswered(response)) return;
    if (nack.retryAfterSeconds !== undefined && !hasHeader(response, RETRY_AFTER_HEADER)) {
      adapter.setHeader(response, RETRY_AFTER_HEADER, String(nack.retryAfterSeconds));
    }
    for (const [name, value] of Object.entries(nack.headers ?? {})) adapter.setHeader(response, name, value);
    const body: BrokerAcknowledgement = { acknowledgement: Acknowledgement.NACK, message: nack.message };
    adapter.reply(response, body, nack.status);
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

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
