import { MmmqError } from '@mmmq/core';
import { Producer, ReplyError, RequestCancelledError, RequestTimeoutError } from '@mmmq/producer';
import { waitFor } from './wait-for';

/** The requester of each case, whatever the form (one app, or the replier in a process of its own). */
export interface RequestReplyParties {
  producer(): Producer;
}

interface CalculatorState {
  slowStarted: number;
  failures: number;
  events: unknown[];
}

/** What the replier has seen, asked of it by a request of its own. */
export const calculatorState = (producer: Producer) => producer.request<CalculatorState>('calc.state', null);

/** The cases every form of request-reply must pass. */
export function requestReplyCases(parties: RequestReplyParties): void {
  it("resolves with the handler's result: returned, resolved, or the Observable's last value", async () => {
    const producer = parties.producer();
    await expect(producer.request('calc.sum', [1, 2, 3.5])).resolves.toBe(6.5);
    await expect(producer.request('calc.echo', { deep: ['x', null] }, { id: 'echo-1' })).resolves.toEqual({
      value: { deep: ['x', null] },
      id: 'echo-1',
    });
    await expect(producer.request('calc.observe', 7)).resolves.toBe(21);
    expect(producer.replyStats()).toEqual({ pending: 0, answered: 3, late: 0 });
  });

  it('correlates many concurrent requests, each with its own reply', async () => {
    const producer = parties.producer();
    const count = 300;
    const replies = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        producer.request<{ value: number }>(i % 2 === 0 ? 'calc.echo' : 'calc.sum', i % 2 === 0 ? i : [i, 1]),
      ),
    );
    replies.forEach((reply, i) => expect(i % 2 === 0 ? (reply as { value: number }).value : reply).toBe(i % 2 === 0 ? i : i + 1));
    // Each request answered once, by its own reply. On a busy machine a pull replier's lease can run out behind 300
    // queued requests: the broker delivers them again and their second replies are dropped as late (at least once).
    expect(producer.replyStats()).toMatchObject({ pending: 0, answered: count });
  });

  it("rejects with the handler's error (name and message, no stack) and settles the request without retrying it", async () => {
    const producer = parties.producer();
    const failure = await producer.request('calc.fail', { fail: true }, { id: 'failing-1' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ReplyError);
    expect(failure).toBeInstanceOf(MmmqError);
    expect(failure).toMatchObject({ topic: 'calc.fail', id: 'failing-1', remoteName: 'RangeError', remoteMessage: 'division by zero' });
    expect((failure as Error).message).not.toMatch(/\n\s+at /);
    // Same listener, one at a time: a NACKed request would come again before or around this one.
    await expect(producer.request('calc.fail', { fail: false })).resolves.toBe('ok');
    expect((await calculatorState(producer)).failures).toBe(1);
  });

  it('times out with RequestTimeoutError, then drops and counts the late reply', async () => {
    const producer = parties.producer();
    const started = Date.now();
    const failure = await producer.request('calc.slow', 5, { timeoutMs: 300 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RequestTimeoutError);
    expect(failure).toMatchObject({ topic: 'calc.slow', timeoutMs: 300 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect((await calculatorState(producer)).slowStarted).toBe(1);
    await producer.request('calc.open', null);
    await waitFor(() => producer.replyStats().late === 1, `the late reply counted (${JSON.stringify(producer.replyStats())})`);
    expect(producer.replyStats().pending).toBe(0);
  });

  it('answers a listener that returns nothing with undefined, and leaves events without reply headers unanswered', async () => {
    const producer = parties.producer();
    await expect(producer.request('calc.silent', 'asked')).resolves.toBeUndefined();
    await producer.produce('calc.silent', 'told');
    let state: CalculatorState | undefined;
    await waitFor(async () => (state = await calculatorState(producer)).events.length === 2, 'both messages handled');
    expect(state!.events).toEqual(['asked', 'told']);
    expect(producer.replyStats()).toMatchObject({ pending: 0, late: 0 });
  });

  it('rejects pending requests with RequestCancelledError on close(), which is idempotent', async () => {
    const producer = parties.producer();
    const pending = producer.request('calc.slow', 1).catch((error: unknown) => error);
    await waitFor(async () => (await calculatorState(producer)).slowStarted === 1, 'the slow handler started');
    const closing = producer.close();
    expect(producer.close()).toBe(closing);
    await closing;
    const failure = await pending;
    expect(failure).toBeInstanceOf(RequestCancelledError);
    expect(failure).toMatchObject({ topic: 'calc.slow' });
    expect(producer.replyStats().pending).toBe(0);
  });
}
