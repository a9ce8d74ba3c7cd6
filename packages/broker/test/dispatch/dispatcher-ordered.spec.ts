import { MmmqValidationError } from '@mmmq/core';
import {
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_UNORDERED_MAX_IN_FLIGHT,
  parseDispatcherDefinition,
  sameSettings,
  toDefinitionJson,
  toStoredDefinitionJson,
} from '../../src/dispatch/dispatcher-definition';

const base = { consumerId: 'audit', host: 'http://127.0.0.1:9000', pattern: 'order.*' };
const parse = (fields: object) => parseDispatcherDefinition({ ...base, ...fields }, 'entry 0');

describe('a dispatcher’s ordered setting', () => {
  it('is true by default, with one push in flight, and is not shown then', () => {
    const definition = parse({});
    expect(definition).toMatchObject({ ordered: true, maxInFlight: DEFAULT_MAX_IN_FLIGHT });
    expect(toDefinitionJson(definition)).not.toHaveProperty('ordered');
  });

  it('false gets DEFAULT_UNORDERED_MAX_IN_FLIGHT pushes in flight unless maxInFlight says otherwise, and is shown and stored', () => {
    expect(parse({ ordered: false })).toMatchObject({ ordered: false, maxInFlight: DEFAULT_UNORDERED_MAX_IN_FLIGHT });
    const definition = parse({ ordered: false, maxInFlight: 3 });
    expect(definition.maxInFlight).toBe(3);
    expect(toDefinitionJson(definition)).toMatchObject({ ordered: false, maxInFlight: 3 });
    expect(parseDispatcherDefinition(toStoredDefinitionJson(definition), 'again')).toEqual(definition);
  });

  it('makes a definition with other settings: a host joining must ask for the same', () => {
    expect(sameSettings(parse({ ordered: false }), parse({ ordered: false }))).toBe(true);
    expect(sameSettings(parse({ ordered: false, maxInFlight: 1 }), parse({ maxInFlight: 1 }))).toBe(false);
  });

  it.each([
    ['not a boolean', { ordered: 'no' }, /entry 0: ordered must be true or false, got "no"/],
    ['with exclusive: true', { ordered: false, exclusive: true }, /entry 0: ordered: false cannot go with exclusive: true/],
    ['with maxActiveMembers 1', { ordered: false, maxActiveMembers: 1 }, /entry 0: ordered: false cannot go with exclusive: true/],
    ['with maxInFlight above 16', { ordered: false, maxInFlight: 17 }, /entry 0: maxInFlight must be an integer from 1 to 16/],
  ])('is refused %s, naming it', (_, fields, message) => {
    expect(() => parse(fields)).toThrow(MmmqValidationError);
    expect(() => parse(fields)).toThrow(message);
  });

  it('goes with maxActiveMembers above 1, which keeps no order across messages anyway', () => {
    expect(parse({ ordered: false, maxActiveMembers: 2 })).toMatchObject({ ordered: false, maxActiveMembers: 2 });
  });
});
