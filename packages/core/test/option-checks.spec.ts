import { MmmqError } from '../src/errors/mmmq-error';
import { MAX_TIMER_MS, optionChecks } from '../src/option-checks';

class InvalidThingOptionsError extends MmmqError {}

const checks = optionChecks(InvalidThingOptionsError);

describe('optionChecks', () => {
  it('throws the package error class, naming the option and quoting the value', () => {
    const error: unknown = (() => {
      try {
        return checks.positiveInteger('timeoutMs', '5');
      } catch (caught) {
        return caught;
      }
    })();

    expect(error).toBeInstanceOf(InvalidThingOptionsError);
    expect((error as Error).message).toBe('timeoutMs must be a positive integer, got "5"');
  });

  it.each<[string, () => unknown, string]>([
    ['zero is not positive', () => checks.positiveInteger('n', 0), 'n must be a positive integer, got 0'],
    ['a fraction is no integer', () => checks.nonNegativeInteger('n', 1.5), 'n must be a non-negative integer, got 1.5'],
    ['a negative count', () => checks.nonNegativeInteger('n', -1), 'n must be a non-negative integer, got -1'],
    [
      'above the cap',
      () => checks.positiveInteger('delayMs', MAX_TIMER_MS + 1, MAX_TIMER_MS),
      `delayMs must be at most ${MAX_TIMER_MS}, got ${MAX_TIMER_MS + 1}`,
    ],
    ['outside a range', () => checks.integerInRange('port', 70_000, 0, 65_535), 'port must be an integer from 0 to 65535, got 70000'],
    ['not one of the choices', () => checks.oneOf('mode', 'pul', ['push', 'pull']), 'mode must be one of "push", "pull", got "pul"'],
    ['a blank string', () => checks.nonBlankString('rootDir', ' '), 'rootDir must be a non-blank string, got " "'],
    ['an array for an object', () => checks.plainObject('pull', [1]), 'pull must be an object, got [1]'],
    [
      'unknown fields',
      () => checks.refuseUnknownFields('workers', { min: 1, maximum: 3 }, new Set(['min', 'max'])),
      'workers has unknown field(s) maximum; allowed are min, max',
    ],
  ])('refuses %s', (_case, check, message) => {
    expect(check).toThrow(new InvalidThingOptionsError(message));
  });

  it('returns valid values unchanged', () => {
    expect(checks.positiveInteger('n', 3, 3)).toBe(3);
    expect(checks.nonNegativeInteger('n', 0)).toBe(0);
    expect(checks.oneOf('mode', 'pull', ['push', 'pull'] as const)).toBe('pull');
    expect(checks.plainObject('pull', { a: 1 })).toEqual({ a: 1 });
    expect(() => checks.refuseUnknownFields('workers', { min: 1 }, new Set(['min', 'max']))).not.toThrow();
  });
});
