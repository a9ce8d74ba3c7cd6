import { MmmqValidationError, parseSeekPosition, parseStartFrom, sameStartFrom } from '../src';

describe('seek positions and startFrom', () => {
  it('reads the four positions a seek takes', () => {
    expect(parseSeekPosition('to', 'beginning')).toBe('beginning');
    expect(parseSeekPosition('to', 'end')).toBe('end');
    expect(parseSeekPosition('to', { offset: 0 })).toEqual({ offset: 0 });
    expect(parseSeekPosition('to', { time: '2026-12-07T10:00:00.123+01:00' })).toEqual({ time: '2026-12-07T10:00:00.123+01:00' });
  });

  it.each([
    ['start', /^to must be "beginning", "end", \{"offset": n\} or \{"time": "<ISO 8601>"\}, got "start"/],
    [{ offset: 1.5 }, /^to\.offset must be a non-negative integer, got 1\.5/],
    [{ offset: 1, time: 'x' }, /^to must be/],
    // Without a zone the instant depends on the machine: refused.
    [{ time: '2026-12-07T10:00:00' }, /^to\.time must be an ISO 8601 time with a zone/],
    [{ time: '2026-13-07T10:00:00Z' }, /^to\.time must be an ISO 8601 time with a zone/],
  ])('refuses %j naming the field', (input, message) => {
    expect(() => parseSeekPosition('to', input)).toThrow(MmmqValidationError);
    expect(() => parseSeekPosition('to', input)).toThrow(message);
  });

  it('reads startFrom, a time included, and compares times by the instant they name', () => {
    expect(parseStartFrom('startFrom', undefined)).toBeUndefined();
    expect(parseStartFrom('startFrom', 'latest')).toBe('latest');
    expect(parseStartFrom('startFrom', { time: '2026-12-07T10:00:00Z' })).toEqual({ time: '2026-12-07T10:00:00Z' });
    expect(() => parseStartFrom('startFrom', 'beginning')).toThrow(/^startFrom must be "earliest", "latest" or \{"time"/);
    expect(sameStartFrom({ time: '2026-12-07T10:00:00Z' }, { time: '2026-12-07T11:00:00+01:00' })).toBe(true);
    expect(sameStartFrom({ time: '2026-12-07T10:00:00Z' }, 'earliest')).toBe(false);
    expect(sameStartFrom('latest', 'latest')).toBe(true);
  });
});
