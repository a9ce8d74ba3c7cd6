import { REPLY_INBOX_IDLE_MS, REPLY_INBOX_MAX_REPLIES, REPLY_RELAY_MAX_BYTES, ReplyRelay } from '../../src/replies/reply-relay';

const reply = (inbox: string, n: number, content: unknown = n) => ({ inbox, correlationId: `c-${n}`, content });

describe('ReplyRelay', () => {
  let relay: ReplyRelay;
  const open = new AbortController().signal;

  beforeEach(() => {
    jest.useFakeTimers();
    relay = new ReplyRelay();
  });
  afterEach(() => {
    relay.onModuleDestroy();
    jest.useRealTimers();
  });

  it('hands a waiting collection the first reply at once, and the next collection what came meanwhile', async () => {
    const waiting = relay.collect('inbox', 20_000, open);
    expect(relay.collecting('inbox')).toBe(true);
    expect(relay.relay(reply('inbox', 1))).toBe(true);
    await expect(waiting).resolves.toEqual([reply('inbox', 1)]);
    relay.relay(reply('inbox', 2));
    relay.relay(reply('inbox', 3));
    await expect(relay.collect('inbox', 20_000, open)).resolves.toEqual([reply('inbox', 2), reply('inbox', 3)]);
  });

  it('answers a collection with nothing when its wait ends, or its client goes away', async () => {
    const waiting = relay.collect('inbox', 1_000, open);
    jest.advanceTimersByTime(1_000);
    await expect(waiting).resolves.toEqual([]);
    const gone = new AbortController();
    const abandoned = relay.collect('inbox', 20_000, gone.signal);
    gone.abort();
    await expect(abandoned).resolves.toEqual([]);
    expect(relay.collecting('inbox')).toBe(false);
  });

  it('gives a newer collection of one inbox the replies, and the older nothing', async () => {
    const older = relay.collect('inbox', 20_000, open);
    const newer = relay.collect('inbox', 20_000, open);
    await expect(older).resolves.toEqual([]);
    relay.relay(reply('inbox', 1));
    await expect(newer).resolves.toEqual([reply('inbox', 1)]);
  });

  it('forgets an inbox nobody collected from for the idle time, counting its replies as dropped', async () => {
    relay.relay(reply('forgotten', 1));
    relay.relay(reply('kept', 2));
    jest.advanceTimersByTime(REPLY_INBOX_IDLE_MS / 2);
    await relay.collect('kept', 0, open);
    jest.advanceTimersByTime(REPLY_INBOX_IDLE_MS);
    expect(relay.droppedReplies).toBe(1);
    await expect(relay.collect('forgotten', 0, open)).resolves.toEqual([]);
  });

  it('drops replies beyond an inbox of REPLY_INBOX_MAX_REPLIES, and beyond REPLY_RELAY_MAX_BYTES in all', async () => {
    for (let n = 0; n < REPLY_INBOX_MAX_REPLIES; n++) relay.relay(reply('full', n));
    expect(relay.relay(reply('full', -1))).toBe(false);
    expect(relay.droppedReplies).toBe(1);
    await relay.collect('full', 0, open);
    const large = 'x'.repeat(1024 * 1024);
    let accepted = 0;
    while (relay.relay(reply('large', accepted, large))) accepted++;
    expect(accepted).toBe(REPLY_RELAY_MAX_BYTES / large.length - 1);
    expect(relay.droppedReplies).toBe(2);
    // Collected replies free their bytes.
    await relay.collect('large', 0, open);
    expect(relay.relay(reply('large', 0, large))).toBe(true);
  });
});
