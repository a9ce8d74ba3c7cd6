import { NonRetriableError } from '@mmmq/consumer';
import { REPLY_ERROR_DATA } from '@mmmq/core';
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
  const error = judged(failure);
  // A requester's Nest client receives this as `err`, as on Nest's own transports.
  const answer = rpcAnswerOf(failure);
  if (answer !== undefined) Object.defineProperty(error, REPLY_ERROR_DATA, { value: answer });
  return error;
}

/**
 * What Nest's RPC exception filter answers for `failure` (`{ status: 'error', message }`, or an `RpcException`'s own
 * object); a filter's answer as it is; undefined for an Error that no filter turned into an answer.
 */
function rpcAnswerOf(failure: unknown): unknown {
  if (failure instanceof RpcException) {
    const error = failure.getError();
    return typeof error === 'object' && error !== null ? error : { status: 'error', message: error };
  }
  return failure instanceof Error ? undefined : failure;
}

function judged(failure: unknown): Error {
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
