import { HttpException, HttpStatus } from '@nestjs/common';
import { NonRetriableError } from '../errors/non-retriable.error';

// What Nest's pipes and guards throw: ValidationPipe and the Parse*Pipes (400, or 422 with `errorHttpStatusCode`),
// a guard (401, 403). The same message gets the same answer. Any other 4xx a handler throws (404 for data not visible
// yet, 409 from optimistic locking, 410 …) may pass on another attempt, so it is retried like any error.
const VERDICT_STATUSES: ReadonlySet<number> = new Set([
  HttpStatus.BAD_REQUEST,
  HttpStatus.UNAUTHORIZED,
  HttpStatus.FORBIDDEN,
  HttpStatus.UNPROCESSABLE_ENTITY,
]);

/**
 * Why `error` is a verdict on the message that another attempt cannot change, so it is dead-lettered now; or
 * undefined for an error worth retrying. Verdicts: a `NonRetriableError`; an `HttpException` of status 400, 401,
 * 403 or 422 (what pipes and guards throw); an `RpcException` of
 * `@nestjs/microservices` (recognised by name, so that package is not needed).
 */
export function verdictOf(error: unknown): string | undefined {
  if (error instanceof NonRetriableError) return error.message;
  if (error instanceof HttpException) {
    const status = error.getStatus();
    if (!VERDICT_STATUSES.has(status)) return undefined;
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
