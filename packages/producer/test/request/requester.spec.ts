import { InvalidMessageError, MmmqError, REPLY_HEADERS, ReplyInboxes } from '@mmmq/core';
import { Requester } from '../../src/request/requester';
import { ReplyError, RequestCancelledError, RequestReplyUnavailableError, RequestTimeoutError } from '../../src/errors/request.errors';
import type { ProduceOptions } from '../../src/produce-options';

interface Sent {
  topic: string;
  content: unknown;
  options: ProduceOptions;
}

/** A requester whose publishes are recorded, and answered by `publish` (resolves by default). */
function requester(publish: (sent: Sent) => Promise<unknown> = () => Promise.resolve()) {
  const sent: Sent[] = [];
  const subject = new Requester({ kind: 'local' }, (topic, content, options) => {
    const one = { topic, content, options };
    sent.push(one);
    return publish(one);
  });
  const answer = (index: number, reply: { content?: unknown; error?: { name: string; message: string } }) => {
    const headers = sent[index].options.headers!;
    return ReplyInboxes.deliver({
      inbox: String(headers[REPLY_HEADERS.replyTo]),
      correlationId: String(headers[REPLY_HEADERS.correlationId]),
      ...reply,
    });
  };
  return { subject, sent, answer };
}

describe('Requester', () => {
  afterEach(() => jest.useRealTimers());

  it('publishes with its own headers kept and the reply headers added, and resolves with the reply', async () => {
    const { subject, sent, answer } = requester();
    const reply = subject.request('calc.sum', [1, 2], { id: 'r-1', headers: { region: 'eu' }, priority: 7 });
    await Promise.resolve();
    expect(sent).toHaveLength(1);
    expect(sent[0].options).toMatchObject({ id: 'r-1', priority: 7, headers: { region: 'eu' } });
    expect(Object.keys(sent[0].options.headers!).sort()).toEqual(['mmmq-correlation-id', 'mmmq-reply-to', 'region']);
    expect(sent[0].options).not.toHaveProperty('timeoutMs');
    expect(answer(0, { content: 3 })).toBe(true);
    await expect(reply).resolves.toBe(3);
    expect(subject.stats()).toEqual({ pending: 0, answered: 1, late: 0 });
    subject.close();
  });

  it('correlates replies that come in another order', async () => {
    const { subject, sent, answer } = requester();
    const replies = [0, 1, 2].map((n) => subject.request('calc.echo', n));
    await Promise.resolve();
    for (const index of [2, 0, 1]) answer(index, { content: sent[index].content });
    await expect(Promise.all(replies)).resolves.toEqual([0, 1, 2]);
    subject.close();
  });

  it("rejects with a ReplyError carrying the handler's error", async () => {
    const { subject, answer } = requester();
    const reply = subject.request('calc.fail', null, { id: 'r-2' });
    await Promise.resolve();
    answer(0, { error: { name: 'RangeError', message: 'division by zero' } });
    const error = await reply.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ReplyError);
    expect(error).toMatchObject({ topic: 'calc.fail', id: 'r-2', remoteName: 'RangeError', remoteMessage: 'division by zero' });
    subject.close();
  });

  it('times out after timeoutMs, then counts a reply that comes later as late and drops it', async () => {
    jest.useFakeTimers();
    const { subject, answer } = requester();
    const reply = subject.request('calc.slow', null, { timeoutMs: 250 }).catch((caught: unknown) => caught);
    await Promise.resolve();
    jest.advanceTimersByTime(249);
    expect(subject.stats().pending).toBe(1);
    jest.advanceTimersByTime(1);
    const error = await reply;
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toBeInstanceOf(MmmqError);
    expect(error).toMatchObject({ timeoutMs: 250, message: expect.stringMatching(/^No reply to request .* on calc.slow within 250 ms/) });
    answer(0, { content: 'too late' });
    expect(subject.stats()).toEqual({ pending: 0, answered: 0, late: 1 });
    subject.close();
  });

  it("rejects with the publish's own error when the request could not be published, and waits for nothing", async () => {
    const failure = new MmmqError('the broker refused it');
    const { subject } = requester(() => Promise.reject(failure));
    await expect(subject.request('calc.sum', [])).rejects.toBe(failure);
    expect(subject.stats().pending).toBe(0);
    subject.close();
  });

  it('rejects every waiting request with RequestCancelledError on close()', async () => {
    const { subject } = requester();
    const replies = [subject.request('a', 1), subject.request('b', 2)].map((reply) => reply.catch((caught: unknown) => caught));
    await Promise.resolve();
    subject.close();
    subject.close();
    const errors = await Promise.all(replies);
    expect(errors.map((error) => error instanceof RequestCancelledError)).toEqual([true, true]);
    expect(errors.map((error) => (error as RequestCancelledError).topic)).toEqual(['a', 'b']);
  });

  it.each([0, -1, 1.5, 2_147_483_648, Number.NaN])('refuses timeoutMs %p before publishing anything', async (timeoutMs) => {
    const { subject, sent } = requester();
    await expect(subject.request('calc.sum', [], { timeoutMs })).rejects.toThrow(InvalidMessageError);
    await expect(subject.request('calc.sum', [], { timeoutMs })).rejects.toThrow(/timeoutMs must be an integer from 1 to 2147483647/);
    expect(sent).toEqual([]);
  });

  it('refuses a request, publishing nothing, when no reply could reach the producer', async () => {
    const sent: unknown[] = [];
    const subject = new Requester({ kind: 'unavailable', reason: 'the rabbitmq transport carries no replies' }, (topic) => {
      sent.push(topic);
      return Promise.resolve();
    });
    await expect(subject.request('calc.sum', [])).rejects.toThrow(RequestReplyUnavailableError);
    await expect(subject.request('calc.sum', [])).rejects.toThrow(/since the rabbitmq transport carries no replies\. Nothing was sent\./);
    expect(sent).toEqual([]);
  });
});
