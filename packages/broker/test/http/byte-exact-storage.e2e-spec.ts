import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { decodeEnvelope } from '../../src/format/message-envelope';
import { spelledJson } from '../publish/json-text.arbitrary';
import { BrokerApp, startBroker } from './broker-app.fixture';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** Spellings a parse → serialise round trip would change. */
const AWKWARD_CONTENT = [
  '{ "b" :1 ,\n\t"a":[ 1.0 , 1E2, -0, 12345678901234567890, 1e400 ] }',
  '"\\u00fc\\u0041\\ud83d\\ude00 ü 😀 \\/ \\" \\\\"',
  '{"dup":1,"dup":2}',
  '[\r\n]',
  'null',
];

describe('content is stored exactly as the producer sent it', () => {
  let broker: BrokerApp;

  const storedContent = async (topic: string, offset: number) => {
    const payload = await broker.topics.get(topic)?.peek(offset);
    if (!payload) throw new Error(`nothing stored at ${topic}@${offset}`);
    return decodeEnvelope(payload).content;
  };

  beforeAll(async () => {
    broker = await startBroker();
  });

  afterAll(() => broker.close());

  it.each(AWKWARD_CONTENT)('single publish of %j', async (content) => {
    const { body } = await broker.post('/mmmq/messages', `{"content":   ${content}  ,"topic":"exact"}`);
    expect(sha256(await storedContent('exact', body.offset as number))).toBe(sha256(content));
  });

  it('batch publish of all of them', async () => {
    const members = AWKWARD_CONTENT.map((content) => `{"topic":"exact.batch","content":${content}}`);
    const { body } = await broker.post('/mmmq/messages/batch', `{"messages":[ ${members.join(' ,\n')} ]}`);
    const acks = body.messages as { offset: number }[];
    for (const [index, content] of AWKWARD_CONTENT.entries()) {
      expect(sha256(await storedContent('exact.batch', acks[index].offset))).toBe(sha256(content));
    }
  });

  it('for any JSON value in any spelling', async () => {
    await fc.assert(
      fc.asyncProperty(spelledJson(), async ({ text }) => {
        const content = text.trim();
        const { status, body } = await broker.post('/mmmq/messages', `{"topic":"exact.any","content":${text}}`);
        expect(status).toBe(200);
        expect(sha256(await storedContent('exact.any', body.offset as number))).toBe(sha256(content));
      }),
      { numRuns: 50 },
    );
  });
});
