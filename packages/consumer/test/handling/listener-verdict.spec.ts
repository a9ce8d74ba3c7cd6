import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  HttpException,
  HttpStatus,
  InternalServerErrorException,
  NotFoundException,
  UnauthorizedException,
  UnprocessableEntityException,
} from '@nestjs/common';
import { NonRetriableError } from '../../src';
import { verdictOf } from '../../src/handling/listener-verdict';

/** Stands in for `@nestjs/microservices`' RpcException, which is recognised by name. */
class RpcException extends Error {
  constructor(private readonly error: string | object) {
    super(typeof error === 'string' ? error : JSON.stringify(error));
  }
  getError(): string | object {
    return this.error;
  }
}

describe('verdictOf: which errors dead-letter a message at once', () => {
  it('takes a NonRetriableError at its word', () => {
    expect(verdictOf(new NonRetriableError('refund exceeds the amount paid'))).toBe('refund exceeds the amount paid');
  });

  it("lists a ValidationPipe's violations and names a guard's refusal: 400, 401, 403, 422", () => {
    const validation = new BadRequestException(['quantity must not be less than 1', 'property coupon should not exist']);
    expect(verdictOf(validation)).toBe('BadRequestException (400): quantity must not be less than 1; property coupon should not exist');
    expect(verdictOf(new ForbiddenException('Forbidden resource'))).toBe('ForbiddenException (403): Forbidden resource');
    expect(verdictOf(new UnauthorizedException())).toBe('UnauthorizedException (401): Unauthorized');
    expect(verdictOf(new UnprocessableEntityException(['quantity must be an integer']))).toBe(
      'UnprocessableEntityException (422): quantity must be an integer',
    );
  });

  it('recognises an RpcException, with a string or an object error', () => {
    expect(verdictOf(new RpcException('unknown tenant'))).toBe('RpcException: unknown tenant');
    expect(verdictOf(new RpcException({ message: 'unknown tenant', code: 7 }))).toBe('RpcException: unknown tenant');
  });

  it('leaves what another attempt may change to the retries: other 4xx, 5xx and ordinary errors', () => {
    expect(verdictOf(new NotFoundException('order o-1 not found yet'))).toBeUndefined();
    expect(verdictOf(new ConflictException('version 3 was updated meanwhile'))).toBeUndefined();
    expect(verdictOf(new HttpException('gone', HttpStatus.GONE))).toBeUndefined();
    expect(verdictOf(new InternalServerErrorException())).toBeUndefined();
    expect(verdictOf(new HttpException('slow down', HttpStatus.TOO_MANY_REQUESTS))).toBeUndefined();
    expect(verdictOf(new HttpException('timed out', HttpStatus.REQUEST_TIMEOUT))).toBeUndefined();
    expect(verdictOf(new Error('the ledger is down'))).toBeUndefined();
    expect(verdictOf('a string')).toBeUndefined();
  });
});
