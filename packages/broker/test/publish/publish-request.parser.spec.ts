import { InvalidMessageError, InvalidTopicError } from '@mmmq/core';
import { resolveBrokerOptions } from '../../src/mmmq-broker-options.resolver';
import { PublishRequestParser } from '../../src/publish/publish-request.parser';

const parser = new PublishRequestParser(resolveBrokerOptions({ http: { maxBodyBytes: 1024, maxJsonDepth: 3, maxBatchMessages: 2 } }).http);
const bytes = (text: string) => Buffer.from(text);
const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('PublishRequestParser', () => {
  it('yields the topic, id, headers and the content bytes as sent', () => {
    const message = parser.parseSingle(bytes('{"headers":{"n":1},"id":"m1","content": {"a" : [1]} ,"topic":"a.b"}'));
    expect(message.topic.name).toBe('a.b');
    expect(message.id).toBe('m1');
    expect(message.headers).toEqual({ n: 1 });
    expect(message.content.toString()).toBe('{"a" : [1]}');
  });

  it('assigns a UUID and empty headers when they are absent or null', () => {
    const message = parser.parseSingle(bytes('{"topic":"t","content":1,"id":null,"headers":null}'));
    expect(message.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(message.headers).toEqual({});
    expect(parser.parseSingle(bytes('{"topic":"t","content":1}')).id).not.toBe(message.id);
  });

  it("accepts the Java producer's topic object", () => {
    expect(parser.parseSingle(bytes('{"topic":{"name":"order.created"},"content":{}}')).topic.name).toBe('order.created');
  });

  it('reads field names the way JSON.parse does, escapes and repeats included', () => {
    const message = parser.parseSingle(bytes('{"topic":"t","\\u0063ontent":1,"content":[2]}'));
    expect(message.content.toString()).toBe('[2]');
  });

  it('accepts content nested exactly to the limit and refuses one level more, before parsing', () => {
    expect(parser.parseSingle(bytes(`{"topic":"t","content":${nested(3)}}`)).content.toString()).toBe(nested(3));
    expect(() => parser.parseSingle(bytes(`{"topic":"t","content":${nested(4)}}`))).toThrow(/limit of 3/);
    // Unbalanced, so JSON.parse would fail too: the depth error shows the scan ran first.
    expect(() => parser.parseSingle(bytes(`{"topic":"t","content":${'['.repeat(100)}`))).toThrow(/limit of 3/);
  });

  it('refuses reserved and invalid topics with InvalidTopicError', () => {
    expect(() => parser.parseSingle(bytes('{"topic":"__dlq","content":1}'))).toThrow(InvalidTopicError);
    expect(() => parser.parseSingle(bytes('{"topic":"a..b","content":1}'))).toThrow(InvalidTopicError);
    expect(() => parser.parseSingle(bytes('{"topic":{"nom":"a"},"content":1}'))).toThrow(InvalidTopicError);
  });

  it('refuses missing fields with InvalidMessageError', () => {
    expect(() => parser.parseSingle(bytes('{"content":1}'))).toThrow(InvalidMessageError);
    expect(() => parser.parseSingle(bytes('{"topic":"t"}'))).toThrow(InvalidMessageError);
  });

  it('parses a batch, each content sliced from its own message', () => {
    const messages = parser.parseBatch(bytes('{"messages":[{"topic":"t","content":"x"},{"topic":"u","content":{}}]}'));
    expect(messages.map((message) => [message.topic.name, message.content.toString()])).toEqual([
      ['t', '"x"'],
      ['u', '{}'],
    ]);
  });

  it('allows the batch wrapper its own levels on top of the content limit', () => {
    const body = `{"messages":[{"topic":"t","content":${nested(3)}}]}`;
    expect(parser.parseBatch(bytes(body))[0].content.toString()).toBe(nested(3));
  });

  it('refuses batches over the size limit, and names the failing message keeping its error class', () => {
    const three = JSON.stringify({ messages: Array(3).fill({ topic: 't', content: 1 }) });
    expect(() => parser.parseBatch(bytes(three))).toThrow(/at most 2 messages, got 3/);
    const bad = bytes('{"messages":[{"topic":"t","content":1},{"topic":"a/b","content":1}]}');
    expect(() => parser.parseBatch(bad)).toThrow(InvalidTopicError);
    expect(() => parser.parseBatch(bad)).toThrow(/^messages\[1\]: Topic name "a\/b"/);
  });

  it('yields ttlMs, expiresAt and priority when given, and none of them when absent or null', () => {
    const message = parser.parseSingle(bytes('{"topic":"t","content":1,"ttlMs":500,"priority":9}'));
    expect([message.ttlMs, message.expiresAt, message.priority]).toEqual([500, undefined, 9]);
    expect(parser.parseSingle(bytes('{"topic":"t","content":1,"expiresAt":1700000000000}')).expiresAt).toBe(1700000000000);
    const plain = parser.parseSingle(bytes('{"topic":"t","content":1,"ttlMs":null,"priority":null}'));
    expect(plain).not.toHaveProperty('ttlMs');
    expect(plain).not.toHaveProperty('priority');
  });

  it.each([
    ['"ttlMs":0', /"ttlMs" must be a positive integer/],
    ['"ttlMs":1.5', /"ttlMs" must be a positive integer/],
    ['"expiresAt":"tomorrow"', /"expiresAt" must be a positive integer/],
    ['"ttlMs":10,"expiresAt":1700000000000', /"ttlMs" and "expiresAt" cannot both be given/],
    ['"priority":10', /"priority" must be an integer from 0 to 9/],
    ['"priority":-1', /"priority" must be an integer from 0 to 9/],
    ['"priority":"high"', /"priority" must be an integer from 0 to 9/],
  ])('refuses %s with InvalidMessageError naming the field', (fields, message) => {
    expect(() => parser.parseSingle(bytes(`{"topic":"t","content":1,${fields}}`))).toThrow(InvalidMessageError);
    expect(() => parser.parseSingle(bytes(`{"topic":"t","content":1,${fields}}`))).toThrow(message);
    expect(() => parser.parseBatch(bytes(`{"messages":[{"topic":"t","content":1,${fields}}]}`))).toThrow(/^messages\[0\]: /);
  });
});
