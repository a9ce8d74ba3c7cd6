import { RecentEntries } from '../../src/storage/recent-entries';
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
