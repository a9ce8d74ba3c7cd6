import { FairShare, ShareState } from '../../src/dispatch/fair-share';

describe('FairShare', () => {
  const LEASE_MS = 30_000;
  const state = (fields: Partial<ShareState>): ShareState => ({
    pushMembers: 0,
    push: false,
    outstanding: 3000,
    held: 0,
    maxActive: Infinity,
    ...fields,
  });
  const nobodyHolds = () => false;

  it('leaves a push host room for its even split beside another host and a waiting pull member', () => {
    const share = new FairShare(() => LEASE_MS);
    share.seen('puller', 0);
    const doneWaiting = share.wait('puller');
    expect(share.room('http://a', state({ pushMembers: 2, push: true }), nobodyHolds, 1)).toBe(1000);
    expect(share.room('http://a', state({ pushMembers: 2, push: true, held: 600 }), nobodyHolds, 1)).toBe(400);
    expect(share.room('http://a', state({ pushMembers: 2, push: true, held: 1000 }), nobodyHolds, 1)).toBe(0);
    doneWaiting();
    // Neither waiting nor holding: the pull member takes no share from the hosts.
    expect(share.room('http://a', state({ pushMembers: 2, push: true }), nobodyHolds, 1)).toBe(1500);
    // Holding leases, it still competes.
    expect(share.room('http://a', state({ pushMembers: 2, push: true }), (member) => member === 'puller', 1)).toBe(1000);
  });

  it('counts the pull member asking, and gives it at least one message when it holds none', () => {
    const share = new FairShare(() => LEASE_MS);
    share.seen('puller', 0);
    expect(share.room('puller', state({ pushMembers: 2, outstanding: 2 }), nobodyHolds, 1)).toBe(1);
  });

  it('is unlimited for a member competing with no one, and with maxActiveMembers 1', () => {
    const share = new FairShare(() => LEASE_MS);
    expect(share.room('http://a', state({ pushMembers: 1, push: true }), nobodyHolds, 1)).toBe(Infinity);
    share.seen('puller', 0);
    expect(share.room('puller', state({}), nobodyHolds, 1)).toBe(Infinity);
    expect(share.room('puller', state({ pushMembers: 3, maxActive: 1 }), nobodyHolds, 1)).toBe(Infinity);
    expect(share.room('puller', state({ pushMembers: 3, maxActive: 2 }), nobodyHolds, 1)).toBe(1500);
  });

  it('forgets a member silent for a lease period (unless its fetch still waits) and one that left', () => {
    const share = new FairShare(() => LEASE_MS);
    share.seen('silent', 0);
    share.seen('left', 0);
    share.seen('waiting', 0);
    share.wait('waiting');
    const holdsAll = () => true;
    expect(share.room('http://a', state({ pushMembers: 1, push: true }), holdsAll, 1)).toBe(750);
    share.leave('left');
    expect(share.room('http://a', state({ pushMembers: 1, push: true }), holdsAll, 1)).toBe(1000);
    expect(share.room('http://a', state({ pushMembers: 1, push: true }), holdsAll, LEASE_MS + 1)).toBe(1500);
    expect(share.tracked).toBe(1);
  });

  it('keeps a member that settles alive', () => {
    const share = new FairShare(() => LEASE_MS);
    share.seen('puller', 0);
    share.refresh('puller', LEASE_MS);
    share.refresh('anonymous', LEASE_MS);
    expect(share.room('http://a', state({ pushMembers: 1, push: true }), () => true, LEASE_MS + 1)).toBe(1500);
    expect(share.tracked).toBe(1);
  });
});
