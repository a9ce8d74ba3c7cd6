import { EventLoopDemand } from '../../src/dispatch/event-loop-demand';

describe("where a lone commit's fsync runs (EventLoopDemand)", () => {
  let pushes = 0;
  const subscribers: Record<string, string[]> = { orders: ['billing'], audit: ['archive'] };
  const demand = () => {
    const loop = new EventLoopDemand();
    loop.watch(
      () => pushes,
      (topic) => subscribers[topic] ?? [],
    );
    return loop;
  };

  beforeEach(() => (pushes = 0));

  it('on the event loop when nothing of the application waits for it', () => {
    expect(demand().needed(['orders'])).toBe(false);
  });

  it('on the thread pool while pushes are in flight or in-process handlers run', () => {
    const loop = demand();
    pushes = 1;
    expect(loop.needed(['orders'])).toBe(true);
    pushes = 0;
    loop.handlerStarted();
    expect(loop.needed(['orders'])).toBe(true);
    loop.handlerEnded();
    expect(loop.needed(['orders'])).toBe(false);
  });

  it('on the thread pool for a topic an in-process listener takes right after, not for the others', () => {
    const loop = demand();
    loop.memberJoined('billing');
    loop.memberJoined('billing');
    expect(loop.needed(['orders'])).toBe(true);
    expect(loop.needed(['audit', 'unknown'])).toBe(false);
    loop.memberLeft('billing');
    expect(loop.needed(['orders'])).toBe(true);
    loop.memberLeft('billing');
    expect(loop.needed(['orders'])).toBe(false);
  });
});
