import { expectQuiet, waitFor } from '@mmmq/test-support';
import { performance } from 'node:perf_hooks';
import { MaxMembersReachedError } from '../../src/dispatch/dispatcher.errors';
import { MemberRoster, RosterLimits } from '../../src/dispatch/member-roster';

describe('MemberRoster', () => {
  const rosters: MemberRoster[] = [];
  afterEach(() => rosters.splice(0).forEach((roster) => roster.stop()));

  const roster = (leaseMs: number, limits: RosterLimits = { maxActive: 1, maxMembers: Infinity }) => {
    const woken: string[] = [];
    const made = new MemberRoster('orders → billing', leaseMs, limits, () => woken.push(made.activeMembers.join(',') || 'none'));
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
    await waitFor(() => members.activeMembers.join() === 'b', { message: 'b to take over from a', deadlineMs: 5_000 });
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
    await waitFor(() => members.activeMembers.join() === 'pusher', { message: 'the push member to take over', deadlineMs: 5_000 });
    await waitFor(() => woken.at(-1) === 'pusher', { message: 'the takeover to wake the members' });
  });

  it('with maxActive 2, the first two members receive and the earliest backup takes the place of one that leaves or falls silent', async () => {
    const { roster: members } = roster(100, { maxActive: 2, maxMembers: Infinity });
    for (const id of ['a', 'b', 'c', 'd']) members.join(id, false, performance.now());
    const receiving = () => ['a', 'b', 'c', 'd'].filter((id) => members.mayReceive(id, performance.now()));
    expect(receiving()).toEqual(['a', 'b']);

    members.leave('a');
    expect(members.activeMembers).toEqual(['b', 'c']);
    expect(receiving()).toEqual(['b', 'c']);

    // b and d go on fetching; c falls silent: d, the only backup left, takes its place after a lease period.
    const keepAlive = setInterval(() => ['b', 'd'].forEach((id) => members.seen(id, performance.now())), 10);
    try {
      await waitFor(() => members.activeMembers.join() === 'b,d', { message: 'd to take over from the silent c', deadlineMs: 5_000 });
    } finally {
      clearInterval(keepAlive);
    }
  });

  it('refuses a pull member beyond maxMembers, naming the option, and admits it once a member left', () => {
    const { roster: members } = roster(60_000, { maxActive: Infinity, maxMembers: 2 });
    members.join('host', true, performance.now());
    members.join('a', false, performance.now());
    expect(() => members.join('b', false, performance.now())).toThrow(MaxMembersReachedError);
    expect(() => members.join('b', false, performance.now())).toThrow(
      /maxMembers is 2 and 2 member\(s\) are in \(host, a\); member b is refused/,
    );
    members.join('a', false, performance.now());
    members.leave('a');
    members.join('b', false, performance.now());
    expect(members.size).toBe(2);
  });

  it('forgets a pull member silent for a lease period, so it no longer counts against maxMembers', async () => {
    const { roster: members } = roster(50, { maxActive: Infinity, maxMembers: 1 });
    members.join('a', false, performance.now());
    expect(() => members.join('b', false, performance.now())).toThrow(MaxMembersReachedError);
    await waitFor(
      () => {
        try {
          members.join('b', false, performance.now());
          return true;
        } catch {
          return false;
        }
      },
      { message: 'b admitted once a fell silent', deadlineMs: 5_000 },
    );
  });
});
