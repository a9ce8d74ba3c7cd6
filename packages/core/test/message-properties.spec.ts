import { assertSchedule, assertMessageProperties, assertPriority, DEFAULT_PRIORITY, InvalidMessageError } from '../src';

describe('message properties', () => {
  it('returns the properties given, and none for absent or null fields', () => {
    expect(assertMessageProperties({ ttlMs: 1000, priority: 0 })).toEqual({ ttlMs: 1000, priority: 0 });
    expect(assertMessageProperties({ expiresAt: 1_700_000_000_000, priority: 9 })).toEqual({ expiresAt: 1_700_000_000_000, priority: 9 });
    expect(assertMessageProperties({ ttlMs: null, expiresAt: undefined, priority: null })).toEqual({});
  });

  it.each([
    [{ ttlMs: 0 }, /"ttlMs" must be a positive integer/],
    [{ ttlMs: -5 }, /"ttlMs" must be a positive integer/],
    [{ ttlMs: '100' }, /"ttlMs" must be a positive integer/],
    [{ expiresAt: 1.5 }, /"expiresAt" must be a positive integer/],
    [{ expiresAt: Number.MAX_SAFE_INTEGER + 2 }, /"expiresAt" must be a positive integer/],
    [{ ttlMs: 1, expiresAt: 2 }, /"ttlMs" and "expiresAt" cannot both be given/],
    [{ priority: 10 }, /"priority" must be an integer from 0 to 9/],
    [{ priority: 4.5 }, /"priority" must be an integer from 0 to 9/],
    [{ priority: true }, /"priority" must be an integer from 0 to 9/],
  ])('refuses %j with InvalidMessageError naming the field', (message, error) => {
    expect(() => assertMessageProperties(message)).toThrow(InvalidMessageError);
    expect(() => assertMessageProperties(message)).toThrow(error);
  });

  it('has the JMS range and default priority', () => {
    expect(DEFAULT_PRIORITY).toBe(4);
    expect([0, 9].map(assertPriority)).toEqual([0, 9]);
    expect(() => assertPriority(-1)).toThrow(InvalidMessageError);
  });
});

describe('a publish schedule (delayMs, deliverAt)', () => {
  it('takes a non-negative integer delay, or an ISO 8601 time with a zone (a Date as its ISO form)', () => {
    expect(assertSchedule({ delayMs: 0 })).toEqual({ delayMs: 0 });
    expect(assertSchedule({ delayMs: 1500, deliverAt: null })).toEqual({ delayMs: 1500 });
    expect(assertSchedule({ deliverAt: '2026-12-24T18:00:00+01:00' })).toEqual({ deliverAt: '2026-12-24T18:00:00+01:00' });
    expect(assertSchedule({ deliverAt: new Date(Date.UTC(2026, 11, 24)) })).toEqual({ deliverAt: '2026-12-24T00:00:00.000Z' });
    expect(assertSchedule({})).toEqual({});
  });

  it.each([
    [{ delayMs: -1 }, '"delayMs" must be a non-negative integer'],
    [{ delayMs: '5' }, '"delayMs" must be a non-negative integer'],
    [{ delayMs: 2 ** 60 }, '"delayMs" must be a non-negative integer'],
    [{ deliverAt: 1_800_000_000_000 }, '"deliverAt" must be an ISO 8601 time'],
    [{ deliverAt: '2026-12-24' }, '"deliverAt" must be an ISO 8601 time'],
    [{ deliverAt: '2026-13-45T18:00:00Z' }, '"deliverAt" must be an ISO 8601 time'],
    [{ deliverAt: new Date(NaN) }, '"deliverAt" must be an ISO 8601 time'],
    [{ delayMs: 1, deliverAt: '2026-12-24T18:00:00Z' }, 'cannot both be given'],
  ])('refuses %p naming the field', (schedule, message) => {
    expect(() => assertSchedule(schedule)).toThrow(message);
    expect(() => assertMessageProperties(schedule)).toThrow(message);
  });
});
