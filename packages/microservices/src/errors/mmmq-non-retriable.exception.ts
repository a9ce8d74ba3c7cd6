import { RpcException } from '@nestjs/microservices';

/**
 * Thrown by a handler (or a pipe's `exceptionFactory`): retrying cannot help this message, so the broker
 * dead-letters it at once, with this message as the reason. Any other exception is retried.
 *
 * Like Nest's `KafkaRetriableException`, `getError()` returns the exception itself, so Nest's default exception
 * filter passes it on to the transport unchanged.
 */
export class MmmqNonRetriableException extends RpcException {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }

  override getError(): this {
    return this;
  }
}
