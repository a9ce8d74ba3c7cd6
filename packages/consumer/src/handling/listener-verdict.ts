import { HttpException, HttpStatus } from '@nestjs/common';
import { NonRetriableError } from '../errors/non-retriable.error';

// A client error that retrying later can resolve: the message is retried, not dead-lettered.
const RETRIABLE_CLIENT_ERRORS: ReadonlySet<number> = new Set([HttpStatus.REQUEST_TIMEOUT, HttpStatus.TOO_MANY_REQUESTS]);

/**
 * Why `error` is a verdict on the message that another attempt cannot change, so it is dead-lettered now; or
 * undefined for an error worth retrying. Verdicts: a `NonRetriableError`; a 4xx `HttpException` (a pipe's
 * `BadRequestException`, a guard's `ForbiddenException`), except 408 and 429; an `RpcException` of
 * `@nestjs/microservices` (recognised by name, so that package is not needed).
 */
export function verdictOf(error: unknown): string | undefined {
  if (error instanceof NonRetriableError) return error.message;
  if (error instanceof HttpException) {
    const status = error.getStatus();
    if (status < 400 || status >= 500 || RETRIABLE_CLIENT_ERRORS.has(status)) return undefined;
    return `${error.name} (${status}): ${describe(error.getResponse(), error.message)}`;
  }
  if (isRpcException(error)) return `RpcException: ${describe(error.getError(), error.message)}`;
  return undefined;
}

/** Nest's bodies are `{ message: string | string[], error, statusCode }`; ValidationPipe lists one violation per entry. */
function describe(response: unknown, fallback: string): string {
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown } | null)?.message;
  if (Array.isArray(message)) return message.map(String).join('; ');
  return typeof message === 'string' ? message : fallback;
}

function isRpcException(error: unknown): error is Error & { getError(): unknown } {
  for (let proto: unknown = error; typeof proto === 'object' && proto !== null; proto = Object.getPrototypeOf(proto)) {
    if ((proto as { constructor?: Function }).constructor?.name === 'RpcException') {
      return typeof (error as { getError?: unknown }).getError === 'function';
    }
  }
  return false;
}
