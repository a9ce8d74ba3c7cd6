import { ArgumentsHost, Catch, RpcExceptionFilter } from '@nestjs/common';
import { BaseRpcExceptionFilter } from '@nestjs/microservices';
import { Observable, throwError } from 'rxjs';
import { MmmqContext } from '../context/mmmq-context';

/**
 * Hands MmmqServer the exception itself instead of what Nest's default RPC filter makes of it (which turns anything
 * but an `RpcException` into "Internal server error"), so that dead letters carry the real reason and the pipes' and
 * guards' refusals count as verdicts: a default `ValidationPipe`'s `BadRequestException` is dead-lettered at once
 * with its messages, an `Error('db down')` is retried with "db down" as its last error. Other transports' messages
 * go to Nest's default filter. Register it on the microservice (`microservice.useGlobalFilters(new
 * MmmqExceptionFilter())`) or on controllers (`@UseFilters(MmmqExceptionFilter)`), not as an HTTP filter.
 */
@Catch()
export class MmmqExceptionFilter implements RpcExceptionFilter<unknown> {
  private readonly fallback = new BaseRpcExceptionFilter();

  catch(exception: unknown, host: ArgumentsHost): Observable<never> {
    if (host.getType() === 'rpc' && host.switchToRpc().getContext() instanceof MmmqContext) return throwError(() => exception);
    return this.fallback.catch(exception, host) as Observable<never>;
  }
}
