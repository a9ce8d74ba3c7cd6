import { InvalidConsumerIdError } from '../../src/errors/invalid-consumer-id-error';
import { InvalidHostError } from '../../src/errors/invalid-host-error';
import { InvalidMessageError } from '../../src/errors/invalid-message-error';
import { InvalidTopicError } from '../../src/errors/invalid-topic-error';
import { InvalidTopicPatternError } from '../../src/errors/invalid-topic-pattern-error';
import { MmmqError } from '../../src/errors/mmmq-error';
import { MmmqValidationError } from '../../src/errors/mmmq-validation-error';

describe('MmmqError', () => {
  it('is an Error carrying its message and name', () => {
    const error = new MmmqError('boom');

    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe('boom');
    expect(error.name).toBe('MmmqError');
    expect(error.stack).toContain('boom');
  });

  it('passes the cause on', () => {
    const cause = new Error('root');

    expect(new MmmqError('wrapped', { cause }).cause).toBe(cause);
  });

  it('has no cause unless given one', () => {
    expect('cause' in new MmmqError('plain')).toBe(false);
  });

  it.each([
    ['MmmqValidationError', MmmqValidationError],
    ['InvalidTopicError', InvalidTopicError],
    ['InvalidTopicPatternError', InvalidTopicPatternError],
    ['InvalidHostError', InvalidHostError],
    ['InvalidConsumerIdError', InvalidConsumerIdError],
    ['InvalidMessageError', InvalidMessageError],
  ])('%s is a validation error named after its class', (name, ErrorClass) => {
    const cause = new Error('root');
    const error = new ErrorClass('bad input', { cause });

    expect(error).toBeInstanceOf(MmmqError);
    expect(error).toBeInstanceOf(MmmqValidationError);
    expect(error.name).toBe(name);
    expect(error.message).toBe('bad input');
    expect(error.cause).toBe(cause);
    expect(String(error)).toBe(`${name}: bad input`);
  });
});
