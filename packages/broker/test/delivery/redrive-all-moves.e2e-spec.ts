import { waitFor } from '@mmmq/test-support';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { TestConsumer } from '../support/test-consumer';
import { FAST_BACKOFF, range } from './delivery.fixture';

const LETTERS = 10;

/** "Redrive all" used to copy every dead letter kept, so 10 failing letters became 320 in 5 redrives. */
describe('redriving all dead letters of a consumer that keeps failing them', () => {
  let broker: BrokerApp;
  const consumer = new TestConsumer();
  const page = async (consumerId: string) => (await broker.request('GET', `/mmmq/dead-letters/${consumerId}?limit=1000`)).body;
  const kept = async (consumerId: string) => {
    const { total, startOffset, deadLetters } = await page(consumerId);
    return { total, kept: total - startOffset, listed: deadLetters.length };
  };
  const contents = async (consumerId: string) =>
    ((await page(consumerId)).deadLetters as Array<{ content: { n: number } }>).map((letter) => letter.content.n).sort((a, b) => a - b);
  const redrive = async (consumerId: string, body: unknown = {}) => {
    const answer = await broker.request('POST', `/mmmq/dead-letters/${consumerId}/redrive`, body);
    expect(answer.status).toBe(200);
    return answer.body.redriven as number;
  };

  beforeAll(async () => {
    await consumer.start();
    // Refused for good at once: each delivery makes a dead letter.
    consumer.reply = () => 'REJECT';
    broker = await startBroker({ delivery: FAST_BACKOFF });
  });
  afterAll(async () => {
    await broker.close();
    await consumer.stop();
  });

  const deadLetter = async (consumerId: string, topic: string) => {
    await broker.addDispatcher(consumerId, consumer.url, topic);
    await broker.publishAll(
      topic,
      range(LETTERS).map((n) => ({ n })),
    );
    await waitFor(async () => (await kept(consumerId)).kept === LETTERS, { message: `${LETTERS} dead letters of ${consumerId}` });
  };

  it('keeps 10 dead letters over five redrives, not 320: each redrive moves them, and each comes back once', async () => {
    await deadLetter('failing', 'redrive.failing');
    for (let round = 1; round <= 5; round++) {
      expect({ round, redriven: await redrive('failing') }).toEqual({ round, redriven: LETTERS });
      // Moved: the ones handed back are no longer listed, until they fail again as new dead letters.
      await waitFor(async () => (await kept('failing')).total === LETTERS * (round + 1), {
        message: `the redriven letters of round ${round} to be dead-lettered again`,
      });
      expect({ round, ...(await kept('failing')) }).toEqual({ round, total: LETTERS * (round + 1), kept: LETTERS, listed: LETTERS });
    }
    expect(await contents('failing')).toEqual(range(LETTERS));
    // Each message: its first delivery and one per redrive.
    const deliveries = consumer.received.filter((push) => push.consumerId === 'failing');
    expect(deliveries).toHaveLength(LETTERS * 6);
  });

  it('hands each letter back once when two redrive-alls race', async () => {
    await deadLetter('racing', 'redrive.racing');
    // Until both answered, redriven letters are given back (503: not counted), so none fails again in between and
    // becomes a new dead letter the second redrive would rightly move.
    consumer.reply = (delivery) => (delivery.consumerId === 'racing' ? { status: 503 } : 'REJECT');
    const answers = await Promise.all([redrive('racing'), redrive('racing')]).finally(() => (consumer.reply = () => 'REJECT'));
    expect(answers.reduce((sum, n) => sum + n, 0)).toBe(LETTERS);
    await waitFor(async () => (await kept('racing')).total === LETTERS * 2, { message: 'the raced letters to fail again' });
    expect(await kept('racing')).toEqual({ total: LETTERS * 2, kept: LETTERS, listed: LETTERS });
  });

  it('copies the letters named by id and leaves them listed', async () => {
    await deadLetter('picking', 'redrive.picking');
    const [first] = (await page('picking')).deadLetters as Array<{ id: string }>;
    expect(await redrive('picking', { ids: [first.id] })).toBe(1);
    await waitFor(async () => (await kept('picking')).total === LETTERS + 1, { message: 'the picked letter to fail again' });
    expect(await kept('picking')).toEqual({ total: LETTERS + 1, kept: LETTERS + 1, listed: LETTERS + 1 });
  });
});
