import { expectQuiet, waitFor } from '@mmmq/test-support';
import { performance } from 'node:perf_hooks';
import { MemberRoster } from '../../src/dispatch/member-roster';

describe('MemberRoster', () => {
  const rosters: MemberRoster[] = [];
  afterEach(() => rosters.splice(0).forEach((roster) => roster.stop()));

  const roster = (leaseMs: number) => {
    const woken: string[] = [];
    const made = new MemberRoster('orders → billing', leaseMs, () => woken.push(made.activeMember ?? 'none'));
    rosters.push(made);
    return { roster: made, woken };
  };

  it('hands over to the next live push member once the active one has failed for a lease period, and wakes the members, unasked', async () => {
    const { roster: members, woken } = roster(50);
    members.join('a', true, performance.now());
    members.join('b', true, performance.now());
    expect(members.mayReceive('b', performance.now())).toBe(false);
    await waitFor(() => woken.length === 1, { message: 'the first election to wake the members' });

    members.failing('a', performance.now());
    // Nobody asks (the failing member backs off for longer than the lease period): the roster's own timer re-elects.
    await waitFor(() => members.activeMember === 'b', { message: 'b to take over from a', deadlineMs: 5_000 });
    await waitFor(() => woken.length === 2, { message: 'the takeover to wake the members' });
    expect(woken).toEqual(['a', 'b']);
    expect(members.mayReceive('a', performance.now())).toBe(false);
  });

  it('keeps an active member that answered again before its lease period ran out, waking nobody', async () => {
    const { roster: members, woken } = roster(200);
    members.join('a', true, performance.now());
    members.join('b', true, performance.now());
    members.mayReceive('a', performance.now());
    await waitFor(() => woken.length === 1, { message: 'the first election to wake the members' });
    members.failing('a', performance.now());
    members.seen('a', performance.now());
    await expectQuiet(woken, { forMs: 300, message: 'a takeover from a member that answered' });
    expect(members.mayReceive('a', performance.now())).toBe(true);
    expect(woken).toEqual(['a']);
  });

  it('hands over from a silent pull member to a push backup by itself', async () => {
    const { roster: members, woken } = roster(50);
    members.join('puller', false, performance.now());
    members.join('pusher', true, performance.now());
    expect(members.mayReceive('puller', performance.now())).toBe(true);
    await waitFor(() => members.activeMember === 'pusher', { message: 'the push member to take over', deadlineMs: 5_000 });
    await waitFor(() => woken.at(-1) === 'pusher', { message: 'the takeover to wake the members' });
  });
});
