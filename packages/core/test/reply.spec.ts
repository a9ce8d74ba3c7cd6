import {
  InvalidMessageError,
  parseReply,
  REPLY_ERROR_DATA,
  REPLY_ERROR_TEXT_MAX_LENGTH,
  REPLY_HEADERS,
  replyAddressOf,
  replyErrorOf,
  ReplyInboxes,
} from '../src';

describe('replies', () => {
  it('reads the reply address of a request, and none of a message without both valid headers', () => {
    expect(replyAddressOf({ [REPLY_HEADERS.replyTo]: 'inbox-1', [REPLY_HEADERS.correlationId]: 'c:1' })).toEqual({
      inbox: 'inbox-1',
      correlationId: 'c:1',
    });
    expect(replyAddressOf({ [REPLY_HEADERS.replyTo]: 'inbox-1' })).toBeUndefined();
    expect(replyAddressOf({ [REPLY_HEADERS.replyTo]: 'inbox 1', [REPLY_HEADERS.correlationId]: 'c' })).toBeUndefined();
    expect(replyAddressOf({ [REPLY_HEADERS.replyTo]: 7, [REPLY_HEADERS.correlationId]: 'c' })).toBeUndefined();
    expect(replyAddressOf(undefined)).toBeUndefined();
  });

  it("keeps an error's name and message, never its stack, and cuts them to a bounded length", () => {
    const error = new RangeError('x'.repeat(REPLY_ERROR_TEXT_MAX_LENGTH + 10));
    const body = replyErrorOf(error);
    expect(body).toEqual({ name: 'RangeError', message: 'x'.repeat(REPLY_ERROR_TEXT_MAX_LENGTH) });
    expect(JSON.stringify(body)).not.toContain('at ');
    expect(replyErrorOf('plain text')).toEqual({ name: 'Error', message: 'plain text' });
    expect(replyErrorOf({ code: 42 })).toEqual({ name: 'Error', message: '{"code":42}' });
  });

  it('carries the JSON details an error holds under REPLY_ERROR_DATA', () => {
    const error = Object.assign(new Error('refused'), { [REPLY_ERROR_DATA]: { status: 'error', message: 'refused' } });
    expect(replyErrorOf(error)).toEqual({ name: 'Error', message: 'refused', data: { status: 'error', message: 'refused' } });
  });

  it('parses a reply as sent over the wire, and refuses what is not one, naming the field', () => {
    expect(parseReply({ inbox: 'i', correlationId: 'c', content: [1] })).toEqual({ inbox: 'i', correlationId: 'c', content: [1] });
    expect(parseReply({ inbox: 'i', correlationId: 'c' })).toEqual({ inbox: 'i', correlationId: 'c' });
    expect(parseReply({ inbox: 'i', correlationId: 'c', error: { name: 'E', message: 'm', data: { a: 1 } } })).toEqual({
      inbox: 'i',
      correlationId: 'c',
      error: { name: 'E', message: 'm', data: { a: 1 } },
    });
    expect(() => parseReply([])).toThrow(InvalidMessageError);
    expect(() => parseReply({ inbox: '', correlationId: 'c' })).toThrow(/"inbox"/);
    expect(() => parseReply({ inbox: 'i', correlationId: 'c', error: { name: 'E' } })).toThrow(/"error"/);
    expect(() => parseReply({ inbox: 'i', correlationId: 'c', content: 1, error: { name: 'E', message: 'm' } })).toThrow(/either/);
    expect(() => parseReply({ inbox: 'i', correlationId: 'c', stack: 'x' })).toThrow(/unknown field\(s\) stack/);
  });

  it('hands a reply to an inbox of this process while it is open', () => {
    const received: unknown[] = [];
    const close = ReplyInboxes.open('inbox-open', (reply) => received.push(reply));
    expect(ReplyInboxes.deliver({ inbox: 'inbox-open', correlationId: 'c' })).toBe(true);
    expect(ReplyInboxes.deliver({ inbox: 'inbox-other', correlationId: 'c' })).toBe(false);
    close();
    expect(ReplyInboxes.deliver({ inbox: 'inbox-open', correlationId: 'c' })).toBe(false);
    expect(received).toEqual([{ inbox: 'inbox-open', correlationId: 'c' }]);
  });
});
