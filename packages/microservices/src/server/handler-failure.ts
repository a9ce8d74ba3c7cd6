import { NonRetriableError } from '@mmmq/consumer';
import { describeViolations, verdictOf } from '@mmmq/consumer/internal';
import { RpcException } from '@nestjs/microservices';
import type { ValidationError } from 'class-validator';
import { HandlerFailedError } from '../errors/handler-failed.error';
import { MmmqNonRetriableException } from '../errors/mmmq-non-retriable.exception';

/**
 * Turns what a handler's stream failed with into what the consumer understands: a `NonRetriableError` (dead-lettered
 * at once) or any other error (retried). The value is what Nest's exception filters made of the exception: by default
 * an `RpcException`'s `getError()`, and `{ status: 'error', message: 'Internal server error' }` for anything else.
 *
 * Verdicts, dead-lettered at once: a `MmmqNonRetriableException`; class-validator's errors (a `ValidationPipe` whose
 * `exceptionFactory` throws `new RpcException(errors)`): the same payload fails the same way every time; and, from a
 * filter that passes exceptions on as they are, what `@MMMQListener` treats as a verdict (a `NonRetriableError`, an
 * `HttpException` 400, 401, 403 or 422), except an `RpcException`, which is what every error of a Nest microservice is.
 */
export function handlerFailure(failure: unknown): Error {
  if (failure instanceof MmmqNonRetriableException) return new NonRetriableError(failure.message, { cause: failure });
  // Passed on as it is (MmmqExceptionFilter): judged by its error, as Nest's default filter would hand it on.
  const error = failure instanceof RpcException ? failure.getError() : failure;
  if (isValidationErrors(error)) return new NonRetriableError(`Validation failed: ${describeViolations(error)}`, { cause: failure });
  if (failure instanceof RpcException) return new HandlerFailedError(messageOf(error), { cause: failure });
  const verdict = verdictOf(failure);
  if (verdict !== undefined) return new NonRetriableError(verdict, { cause: failure });
  return failure instanceof Error ? failure : new HandlerFailedError(messageOf(failure), { cause: failure });
}

function isValidationErrors(value: unknown): value is ValidationError[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every(
      (entry) =>
        typeof entry === 'object' &&
        entry !== null &&
        typeof entry.property === 'string' &&
        ('constraints' in entry || 'children' in entry),
    )
  );
}

/** Nest's filters answer `{ status: 'error', message }`; any other value is shown as JSON. */
function messageOf(value: unknown): string {
  if (typeof value === 'string') return value;
  const message = (value as { message?: unknown } | null)?.message;
  if (typeof message === 'string') return message;
  if (Array.isArray(message)) return message.map(String).join('; ');
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
