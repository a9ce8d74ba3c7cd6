import { BrokerApp, range, startBroker, TestConsumer, waitFor } from '@mmmq/test-support';
import { MAX_BROWSE_PAGE_SIZE } from '../../src/topics/topic-browser';

const DEAD = 7;
const PAGE = 3;

describe('GET /mmmq/dead-letters/{consumerId}: paging with from and limit', () => {
  let broker: BrokerApp;
  const consumer = new TestConsumer();

  beforeAll(async () => {
    // Every message is refused as poison, so each one is dead-lettered on its first delivery.
    consumer.reply = () => 'REJECT';
    await consumer.start();
    broker = await startBroker();
    await broker.addDispatcher('billing', consumer.url, 'order.*');
    await broker.publishAll(
      'order.created',
      range(DEAD).map((n) => ({ n })),
    );
    await waitFor(async () => (await broker.request('GET', '/mmmq/dead-letters/billing?limit=1')).body?.total === DEAD, {
      message: `${DEAD} dead letters for billing`,
    });
  });
  afterAll(async () => {
    await broker.close();
    await consumer.stop();
  });

  it('walks every dead letter once, in order, following nextFrom until it equals total', async () => {
    const pages: Array<{ offsets: number[]; contents: unknown[]; nextFrom: number; total: number }> = [];
    for (let from = 0; ;) {
      const { status, body } = await broker.request('GET', `/mmmq/dead-letters/billing?from=${from}&limit=${PAGE}`);
      expect(status).toBe(200);
      pages.push({
        offsets: body.deadLetters.map((letter: { offset: number }) => letter.offset),
        contents: body.deadLetters.map((letter: { content: unknown }) => letter.content),
        nextFrom: body.nextFrom,
        total: body.total,
      });
      if (body.nextFrom === body.total || pages.length > DEAD) break;
      from = body.nextFrom;
    }

    expect(pages.map((page) => [page.offsets, page.nextFrom, page.total])).toEqual([
      [[0, 1, 2], 3, DEAD],
      [[3, 4, 5], 6, DEAD],
      [[6], 7, DEAD],
    ]);
    expect(pages.flatMap((page) => page.contents)).toEqual(range(DEAD).map((n) => ({ n })));
  });

  it('answers an empty page at the end, and the whole list when no limit is given', async () => {
    const end = await broker.request('GET', `/mmmq/dead-letters/billing?from=${DEAD}&limit=${PAGE}`);
    expect(end.body).toMatchObject({ deadLetters: [], nextFrom: DEAD, total: DEAD });
    const all = await broker.request('GET', '/mmmq/dead-letters/billing');
    expect(all.body.deadLetters).toHaveLength(DEAD);
    expect(all.body.nextFrom).toBe(DEAD);
  });

  it.each([['from=-1'], ['from=1.5'], ['limit=0'], [`limit=${MAX_BROWSE_PAGE_SIZE + 1}`], ['limit=many']])(
    'refuses %s with 400 naming the parameter',
    async (query) => {
      const { status, body } = await broker.request('GET', `/mmmq/dead-letters/billing?${query}`);
      expect(status).toBe(400);
      expect(body.message).toContain(query.split('=')[0]);
    },
  );
});
