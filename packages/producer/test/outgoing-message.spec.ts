import { InvalidMessageError, InvalidTopicError } from '@mmmq/core';
import { publishBody } from '@mmmq/core';
import { messageFromArguments, prepareBatch, prepareBatchMessage, prepareMessage } from '../src/outgoing-message';

describe('prepareMessage', () => {
  it('keeps ttlMs, expiresAt and priority given as options or in the message, and sends them in the body', () => {
    const fromOptions = prepareMessage(messageFromArguments('orders', 1, { id: 'a', ttlMs: 500, priority: 8 }));
    expect(fromOptions).toMatchObject({ id: 'a', ttlMs: 500, priority: 8 });
    expect(publishBody(fromOptions)).toBe('{"topic":"orders","id":"a","ttlMs":500,"priority":8,"content":1}');
    const fromMessage = prepareMessage({ topic: 'orders', content: 1, id: 'b', expiresAt: 1_900_000_000_000, priority: null });
    expect(publishBody(fromMessage)).toBe('{"topic":"orders","id":"b","expiresAt":1900000000000,"content":1}');
  });

  it('refuses a bad ttlMs, expiresAt or priority with the core rules', () => {
    expect(() => prepareMessage({ topic: 'orders', content: 1, priority: 10 })).toThrow(/"priority" must be an integer from 0 to 9/);
    expect(() => prepareMessage({ topic: 'orders', content: 1, ttlMs: 1, expiresAt: 2 })).toThrow(InvalidMessageError);
  });

  it('assigns a fresh UUID when no id is given, and keeps a given one', () => {
    const first = prepareMessage({ topic: 'orders', content: 1 });
    const second = prepareMessage({ topic: 'orders', content: 1, id: null });
    expect(first.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second.id).not.toBe(first.id);
    expect(prepareMessage({ topic: 'orders', content: 1, id: 'order-1' }).id).toBe('order-1');
  });

  it('serialises the content once, so later changes to the caller object do not reach a retry', () => {
    const content = { items: ['a'] };
    const prepared = prepareMessage({ topic: 'orders', content, headers: { n: 1 } });
    content.items.push('b');
    expect(prepared).toEqual({ topic: 'orders', id: prepared.id, headers: { n: 1 }, content: '{"items":["a"]}' });
  });

  it('accepts null content but not what JSON cannot hold', () => {
    expect(prepareMessage({ topic: 'orders', content: null }).content).toBe('null');
    expect(() => prepareMessage({ topic: 'orders', content: undefined })).toThrow(
      /^Message content must be a JSON value \(null included\), got undefined/,
    );
    expect(() => prepareMessage({ topic: 'orders', content: 1n })).toThrow(/^Message content cannot be serialised/);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(() => prepareMessage({ topic: 'orders', content: circular })).toThrow(InvalidMessageError);
  });

  it('validates the topic as the broker does, and refuses reserved topics', () => {
    expect(() => prepareMessage({ topic: '../etc', content: 1 })).toThrow(InvalidTopicError);
    expect(() => prepareMessage({ topic: '', content: 1 })).toThrow(/must not be empty/);
    expect(() => prepareMessage({ topic: '__dead-letters.orders', content: 1 })).toThrow(
      /^Topic __dead-letters\.orders is reserved for the broker/,
    );
  });

  it('validates the id and headers with the core rules', () => {
    expect(() => prepareMessage({ topic: 'orders', content: 1, id: 'has space' })).toThrow(/Message field "id"/);
    expect(() => prepareMessage({ topic: 'orders', content: 1, headers: { at: new Date() } })).toThrow(
      /Message header "at" must be a string, a finite number or a boolean/,
    );
  });

  it('keeps a valid delivery mode, leaves an absent one to the broker, and refuses an unknown one naming the field', () => {
    expect(prepareMessage({ topic: 'orders', content: 1, deliveryMode: 'nonPersistent' }).deliveryMode).toBe('nonPersistent');
    expect(prepareMessage({ topic: 'orders', content: 1 }).deliveryMode).toBeUndefined();
    expect(() => prepareMessage({ topic: 'orders', content: 1, deliveryMode: 'NON_PERSISTENT' })).toThrow(
      /Message field "deliveryMode" must be one of persistent, nonPersistent, got "NON_PERSISTENT"/,
    );
    expect(() =>
      prepareBatch([
        { topic: 'orders', content: 1 },
        { topic: 'orders', content: 2, deliveryMode: 1 },
      ]),
    ).toThrow(/^messages\[1\]: Message field "deliveryMode"/);
  });

  it('refuses something that is not a message', () => {
    expect(() => prepareMessage('orders')).toThrow(
      /^A message must be an object \{ topic, content, id\?, headers\?, ttlMs\?, expiresAt\?, priority\?, delayMs\?, deliverAt\?, deliveryMode\? \}/,
    );
  });
});

describe('prepareBatch', () => {
  it('names the index of an invalid message and keeps its error class', () => {
    const preparing = () =>
      prepareBatch([
        { topic: 'orders', content: 1 },
        { topic: 'a..b', content: 2 },
      ]);
    expect(preparing).toThrow(InvalidTopicError);
    expect(preparing).toThrow(/^messages\[1\]: Topic name "a\.\.b" has an empty segment/);
  });

  it('accepts a batch naming several topics, keeping its order', () => {
    const prepared = prepareBatch([
      { topic: 'orders', content: 1 },
      { topic: 'invoices', content: 2 },
      { topic: 'orders', content: 3 },
    ]);
    expect(prepared.map(({ topic, content }) => `${topic}:${content}`)).toEqual(['orders:1', 'invoices:2', 'orders:3']);
  });

  it('names the index a single message will have in a batch', () => {
    expect(() => prepareBatchMessage({ topic: 'orders', content: 1, id: 'has space' }, 4)).toThrow(/^messages\[4\]: Message field "id"/);
  });

  it('gives every message of a batch its own id', () => {
    const ids = prepareBatch([1, 2, 3].map((content) => ({ topic: 'orders', content }))).map((m) => m.id);
    expect(new Set(ids).size).toBe(3);
  });

  it('refuses something that is not an array', () => {
    expect(() => prepareBatch({ topic: 'orders', content: 1 })).toThrow(/^A batch must be an array of messages/);
  });
});
