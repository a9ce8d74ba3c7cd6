import { listenerOrderOf } from '../src/listener/listener-order';

describe('a listener’s ordered setting', () => {
  it('sends nothing when left out or true (the broker’s default), ordered: false when false', () => {
    expect(listenerOrderOf(undefined, {})).toEqual({});
    expect(listenerOrderOf(true, {})).toEqual({});
    expect(listenerOrderOf(false, { maxActiveMembers: 2 })).toEqual({ ordered: false });
  });

  it('refuses a non-boolean, and false with maxActiveMembers 1 (exclusive, strictly ordered), naming them', () => {
    expect(listenerOrderOf('no', {})).toBe('ordered must be true or false, got "no"');
    expect(listenerOrderOf(false, { maxActiveMembers: 1 })).toMatch(/^ordered: false cannot go with maxActiveMembers 1/);
  });
});
