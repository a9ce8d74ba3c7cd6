import { RecentEntries } from '../../src/storage/recent-entries';
import { RecentEntriesBudget } from '../../src/storage/recent-entries-budget';
import { bytes } from './temp-dir';

describe('RecentEntries', () => {
  it('holds the newest run of offsets within its byte budget', () => {
    const recent = new RecentEntries(5, 10);
    recent.append(5, [bytes('aaaa'), bytes('bbbb')]);
    expect([recent.start, recent.end]).toEqual([5, 7]);
    recent.append(7, [bytes('cccc')]);
    expect([recent.start, recent.end]).toEqual([6, 8]);
    expect(recent.get(5)).toBeUndefined();
    expect(String(recent.get(6))).toBe('bbbb');
    expect(String(recent.get(7))).toBe('cccc');
    expect(recent.get(8)).toBeUndefined();
  });

  it('starts over when an append does not continue the run', () => {
    const recent = new RecentEntries(0);
    recent.append(0, [bytes('a')]);
    recent.append(10, [bytes('k')]);
    expect([recent.start, recent.end]).toEqual([10, 11]);
    expect(recent.get(0)).toBeUndefined();
  });

  it('keeps offsets right across many evictions and compactions', () => {
    const recent = new RecentEntries(0, 3000);
    for (let offset = 0; offset < 5000; offset++) recent.append(offset, [bytes(String(offset).padStart(10, '0'))]);
    expect(recent.end).toBe(5000);
    expect(recent.start).toBe(5000 - 300);
    expect(String(recent.get(4999))).toBe('0000004999');
    expect(String(recent.get(4700))).toBe('0000004700');
  });
});

describe('RecentEntriesBudget', () => {
  it('takes the entries of the topics written least recently when all topics together pass the cap', () => {
    const budget = new RecentEntriesBudget(10);
    const [a, b, c] = [0, 1, 2].map(() => new RecentEntries(0, 8, budget));
    a.append(0, [bytes('aaaa')]);
    b.append(0, [bytes('bbbb')]);
    expect(budget.bytes).toBe(8);
    c.append(0, [bytes('cccc')]);
    expect(a.get(0)).toBeUndefined();
    expect([String(b.get(0)), String(c.get(0))]).toEqual(['bbbb', 'cccc']);
    expect(budget.bytes).toBe(8);

    // The run of a released topic starts again at its tail, so later entries still come from memory.
    a.append(1, [bytes('aa')]);
    expect(String(a.get(1))).toBe('aa');
    expect(budget.bytes).toBe(10);
    a.append(2, [bytes('a')]);
    expect(b.get(0)).toBeUndefined();
    expect([String(c.get(0)), String(a.get(2))]).toEqual(['cccc', 'a']);
    expect(budget.bytes).toBe(7);
  });

  it('never releases the topic being written, even alone over the cap, and forgets closed topics', () => {
    const budget = new RecentEntriesBudget(4);
    const a = new RecentEntries(0, 100, budget);
    a.append(0, [bytes('aaaaaa')]);
    expect(String(a.get(0))).toBe('aaaaaa');
    a.close();
    expect(budget.bytes).toBe(0);
  });
});
