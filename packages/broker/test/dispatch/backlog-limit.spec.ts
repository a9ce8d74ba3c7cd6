import { MmmqValidationError } from '@mmmq/core';
import { parseDispatcherDefinition, sameSettings, toDefinitionJson } from '../../src/dispatch/dispatcher-definition';

const base = { consumerId: 'billing', pattern: 'orders.*' };

function parse(fields: Record<string, unknown>) {
  return parseDispatcherDefinition({ ...base, ...fields }, 'dispatcher');
}

describe('a dispatcher backlog limit (maxBacklog, backlogOverflow)', () => {
  it('has no limit by default, and shows none', () => {
    const definition = parse({});
    expect(definition.backlogLimit).toBeUndefined();
    expect(toDefinitionJson(definition)).not.toHaveProperty('maxBacklog');
    expect(toDefinitionJson(definition)).not.toHaveProperty('backlogOverflow');
  });

  it('rejects publishes by default once a maxBacklog is given, and shows both fields', () => {
    const definition = parse({ maxBacklog: 100 });
    expect(definition.backlogLimit).toEqual({ maxBacklog: 100, overflow: 'reject' });
    expect(toDefinitionJson(definition)).toMatchObject({ maxBacklog: 100, backlogOverflow: 'reject' });
  });

  it.each(['reject', 'dropOldest', 'deadLetter'])('accepts backlogOverflow %s and round-trips it', (overflow) => {
    const definition = parse({ maxBacklog: 5, backlogOverflow: overflow });
    expect(parseDispatcherDefinition(toDefinitionJson(definition), 'again').backlogLimit).toEqual({ maxBacklog: 5, overflow });
  });

  it.each([
    [{ maxBacklog: 0 }, 'maxBacklog must be an integer from 1 to 4294967295, got 0'],
    [{ maxBacklog: 1.5 }, 'maxBacklog must be an integer'],
    [{ maxBacklog: '10' }, 'maxBacklog must be an integer'],
    [{ maxBacklog: 2 ** 32 }, 'maxBacklog must be an integer'],
    [{ maxBacklog: 10, backlogOverflow: 'drop' }, 'backlogOverflow must be "reject", "dropOldest", "deadLetter", got "drop"'],
    [{ backlogOverflow: 'reject' }, 'backlogOverflow needs maxBacklog'],
  ])('refuses %j naming the field', (fields, message) => {
    expect(() => parse(fields)).toThrow(MmmqValidationError);
    expect(() => parse(fields)).toThrow(`dispatcher: ${message}`);
  });

  it('counts as a setting: a dispatcher with another limit is another definition', () => {
    expect(sameSettings(parse({ maxBacklog: 5 }), parse({ maxBacklog: 5, backlogOverflow: 'reject' }))).toBe(true);
    expect(sameSettings(parse({ maxBacklog: 5 }), parse({ maxBacklog: 6 }))).toBe(false);
    expect(sameSettings(parse({ maxBacklog: 5 }), parse({ maxBacklog: 5, backlogOverflow: 'dropOldest' }))).toBe(false);
    expect(sameSettings(parse({}), parse({ maxBacklog: 5 }))).toBe(false);
  });
});
