import { NonRetriableError } from '@mmmq/consumer';
import { BadRequestException, ConflictException } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import { ValidationError } from 'class-validator';
import { HandlerFailedError, MmmqNonRetriableException } from '../src';
import { handlerFailure } from '../src/server/handler-failure';

const violation = Object.assign(new ValidationError(), {
  property: 'orderId',
  constraints: { isString: 'orderId must be a string' },
  children: [],
});

describe('what a failed handler’s stream ended with, as the consumer’s verdict', () => {
  it.each([
    ['MmmqNonRetriableException', new MmmqNonRetriableException('sku 42 does not exist'), 'sku 42 does not exist'],
    ['class-validator errors (default filter)', [violation], 'Validation failed: orderId: orderId must be a string'],
    [
      'RpcException of class-validator errors (passed through)',
      new RpcException([violation]),
      'Validation failed: orderId: orderId must be a string',
    ],
    [
      'a BadRequestException (passed through)',
      new BadRequestException('quantity must be positive'),
      'BadRequestException (400): quantity must be positive',
    ],
    ['a NonRetriableError (passed through)', new NonRetriableError('bad data'), 'bad data'],
  ])('dead-letters at once: %s', (_name, failure, reason) => {
    const error = handlerFailure(failure);
    expect(error).toBeInstanceOf(NonRetriableError);
    expect(error.message).toBe(reason);
  });

  it.each([
    [
      'the default filter’s answer to an RpcException',
      { status: 'error', message: 'payment gateway timed out' },
      'payment gateway timed out',
    ],
    ['the default filter’s answer to anything else', { status: 'error', message: 'Internal server error' }, 'Internal server error'],
    ['an RpcException with a string (passed through)', new RpcException('payment gateway timed out'), 'payment gateway timed out'],
    ['an RpcException with an object (passed through)', new RpcException({ message: 'later', code: 7 }), 'later'],
    ['a 409 (passed through): another attempt may pass', new ConflictException('version moved on'), 'version moved on'],
    ['a plain Error (passed through)', new Error('database connection refused'), 'database connection refused'],
    ['a string', 'timeout', 'timeout'],
    ['anything else, as JSON', { code: 503 }, '{"code":503}'],
  ])('retries: %s', (_name, failure, message) => {
    const error = handlerFailure(failure);
    expect(error).not.toBeInstanceOf(NonRetriableError);
    expect(error.message).toBe(message);
    if (!(failure instanceof Error) || failure instanceof RpcException) expect(error).toBeInstanceOf(HandlerFailedError);
  });
});
