import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { BrokerApp, startBroker } from './broker-app.fixture';

/** `content` nested `levels` arrays deep. */
const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

const SINGLE: [string, string | Buffer, RegExp][] = [
  ['topic ..', '{"topic":"..","content":1}', /empty segment/],
  ['topic .', '{"topic":".","content":1}', /empty segment/],
  ['topic ../x', '{"topic":"../x","content":1}', /forbidden character "\/"/],
  ['topic a/b', '{"topic":"a/b","content":1}', /forbidden character "\/"/],
  ['topic with NUL', '{"topic":"a\\u0000b","content":1}', /forbidden character/],
  ['topic with unicode', '{"topic":"주문","content":1}', /forbidden character/],
  ['topic of 250 characters', JSON.stringify({ topic: 'a'.repeat(250), content: 1 }), /250 characters/],
  ['reserved topic __x', '{"topic":"__x","content":1}', /reserved/],
  ['reserved topic object', '{"topic":{"name":"__dlq"},"content":1}', /reserved/],
  ['topic of the wrong type', '{"topic":7,"content":1}', /must be a string/],
  ['missing topic', '{"content":1}', /"topic" is required/],
  ['missing content', '{"topic":"orders"}', /"content" is required/],
  ['malformed JSON', '{"topic":"orders","content":1', /not valid JSON/],
  ['empty body', '', /has no body/],
  ['a body that is not an object', '["orders",1]', /JSON object/],
  ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]), /UTF-8/],
  ['content nested too deep', `{"topic":"orders","content":${nested(65)}}`, /deeper than the limit of 64/],
  ['an id that is not a string', '{"topic":"orders","content":1,"id":5}', /"id" must be a string/],
  ['an id with a space', '{"topic":"orders","content":1,"id":"a b"}', /"id" must be/],
  ['headers that are not an object', '{"topic":"orders","content":1,"headers":[1]}', /"headers" must be an object/],
  ['a header value that is an object', '{"topic":"orders","content":1,"headers":{"h":{}}}', /string, a finite/],
];

const BATCH: [string, string, RegExp][] = [
  ['no messages array', '{"topic":"orders","content":1}', /\{"messages"/],
  ['an empty batch', '{"messages":[]}', /at least one/],
  ['too many messages', JSON.stringify({ messages: Array(1001).fill({ topic: 'orders', content: 1 }) }), /1000/],
  ['a bad topic in the batch', '{"messages":[{"topic":"orders","content":1},{"topic":"a/b","content":1}]}', /^messages\[1\]: .*"a\/b"/],
  ['batch content nested too deep', `{"messages":[{"topic":"orders","content":${nested(65)}}]}`, /deeper/],
];

describe('invalid publishes are refused with 400 and a NACK naming the problem, and nothing is written', () => {
  let broker: BrokerApp;
  const topicsOnDisk = () => readdir(join(broker.rootDir, 'topics'));

  beforeAll(async () => {
    broker = await startBroker();
    await broker.post('/mmmq/messages', '{"topic":"orders","content":0}');
  });

  afterAll(() => broker.close());

  afterEach(async () => {
    expect(await topicsOnDisk()).toEqual(['orders']);
    expect(broker.topics.get('orders')?.tailOffset).toBe(1);
  });

  it.each(SINGLE)('POST /mmmq/messages with %s', async (_, body, reason) => {
    const response = await broker.post('/mmmq/messages', body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ acknowledgement: 'NACK', message: expect.stringMatching(reason) });
  });

  it.each(BATCH)('POST /mmmq/messages/batch with %s', async (_, body, reason) => {
    const response = await broker.post('/mmmq/messages/batch', body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ acknowledgement: 'NACK', message: expect.stringMatching(reason) });
  });

  it('refuses a compressed body with 415', async () => {
    const response = await broker.post('/mmmq/messages', 'x', { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(response.status).toBe(415);
    expect(response.body).toEqual({ acknowledgement: 'NACK', message: expect.stringMatching(/gzip/) });
  });
});
