import { ArgumentsHost, Catch } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { BaseRpcExceptionFilter } from '@nestjs/microservices';
import { Observable, throwError } from 'rxjs';
import { MmmqContext } from '../context/mmmq-context';

/**
 * Hands MmmqServer the exception itself instead of what Nest's default RPC filter makes of it (which turns anything
 * but an `RpcException` into "Internal server error"), so that dead letters carry the real reason and the pipes' and
 * guards' refusals count as verdicts: a default `ValidationPipe`'s `BadRequestException` is dead-lettered at once
 * with its messages, an `Error('db down')` is retried with "db down" as its last error.
 *
 * Anything else gets Nest's default answer: other transports' messages Nest's RPC filter, HTTP requests (a hybrid
 * application's controller that also has routes) Nest's HTTP filter. For the latter Nest must create the filter:
 * `@UseFilters(MmmqExceptionFilter)`, the class, not an instance. `microservice.useGlobalFilters(new
 * MmmqExceptionFilter())` suits a standalone microservice, which serves no HTTP.
 */
@Catch()
export class MmmqExceptionFilter extends BaseExceptionFilter {
  private readonly rpcFallback = new BaseRpcExceptionFilter();

  override catch(exception: unknown, host: ArgumentsHost): Observable<never> | void {
    if (host.getType() !== 'rpc') return super.catch(exception, host);
    if (host.switchToRpc().getContext() instanceof MmmqContext) return throwError(() => exception);
    return this.rpcFallback.catch(exception, host) as Observable<never>;
  }
}
