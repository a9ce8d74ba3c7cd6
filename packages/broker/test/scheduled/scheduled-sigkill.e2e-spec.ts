import { spawnBroker, useTempDir, waitFor, type BrokerProcess } from '@mmmq/test-support';

const TOPIC = 'order.scheduled';
const CONSUMER = 'scheduled-crash';
const MESSAGES = 10_000;
const BATCH = 1000;
/** The first message is due this long after publishing starts, the last `SPREAD_MS` later. */
const FIRST_DUE_MS = 3000;
const SPREAD_MS = 4000;
/** Consumed before the SIGKILL; the rest after the restart. */
const BEFORE_KILL = 3000;
/** Cancelled right after publishing (among those due last): never delivered, before or after the SIGKILL. */
const CANCELLED = 20;

interface Fetched {
  lease: string;
  id: string;
}

/** 10,000 scheduled messages pending when the broker is SIGKILLed: each is delivered once, at or after its time. */
describe('scheduled messages across a SIGKILL of the broker process', () => {
  const dir = useTempDir('mmmq-scheduled-crash-');
  let broker: BrokerProcess | undefined;

  afterEach(() => broker?.child.kill('SIGKILL'));

  const call = async <T = unknown>(path: string, body: unknown): Promise<T> => {
    const response = await fetch(`${broker!.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = await response.json();
    if (response.status >= 300) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
    return json as T;
  };

  const dueAt = new Map<string, number>();
  const received = new Map<string, number[]>();

  /** Fetches and acknowledges (durably: a pull ack is answered once on disk) until `count` messages in all came. */
  const consumeUntil = (count: number, deadlineMs: number) =>
    waitFor(
      async () => {
        const { messages } = await call<{ messages: Fetched[] }>(`/mmmq/consumers/${CONSUMER}/fetch`, { max: 500, waitMs: 100 });
        const at = Date.now();
        for (const { id } of messages) received.set(id, [...(received.get(id) ?? []), at]);
        if (messages.length > 0) await call(`/mmmq/consumers/${CONSUMER}/ack`, { leases: messages.map((m) => m.lease) });
        return received.size >= count;
      },
      { message: `${count} scheduled messages to be consumed (got ${received.size})`, deadlineMs },
    );

  it('delivers every message once, none before its time', async () => {
    broker = await spawnBroker({ MMMQ_ROOT_DIR: dir() });
    await call('/mmmq/dispatchers', { consumerId: CONSUMER, pattern: TOPIC });
    const start = Date.now();
    for (let first = 0; first < MESSAGES; first += BATCH) {
      const messages = Array.from({ length: BATCH }, (_, i) => {
        const n = first + i;
        // Due times interleave across batches, so due order is not publish order.
        const due = start + FIRST_DUE_MS + ((n * 7919) % MESSAGES) * (SPREAD_MS / MESSAGES);
        const id = `m-${n}`;
        dueAt.set(id, Math.ceil(due));
        return { topic: TOPIC, id, content: { n }, deliverAt: new Date(Math.ceil(due)).toISOString() };
      });
      await call('/mmmq/messages/batch', { messages });
    }
    const latest = [...dueAt].sort((a, b) => b[1] - a[1]).slice(0, CANCELLED);
    for (const [i, [id]] of latest.entries()) {
      // Half by id alone (the broker looks for it), half with the offset of the ACK.
      const offset = i % 2 === 0 ? undefined : Number(id.slice(2));
      await call('/mmmq/scheduled/cancel', { topic: TOPIC, id, ...(offset === undefined ? {} : { offset }) });
    }
    const cancelled = new Set(latest.map(([id]) => id));
    // Every cancel came before its message was due (on a busy machine publishing may outlast FIRST_DUE_MS: harmless).
    expect(Date.now()).toBeLessThan(Math.min(...latest.map(([, due]) => due)));
    await consumeUntil(BEFORE_KILL, 30_000);

    broker.child.kill('SIGKILL');
    expect(await broker.exited).toEqual({ code: null, signal: 'SIGKILL' });
    broker = await spawnBroker({ MMMQ_ROOT_DIR: dir() });
    await consumeUntil(MESSAGES - CANCELLED, 60_000);
    // Past the last due time: a cancelled message would have come by now.
    await waitFor(() => Date.now() > Math.max(...dueAt.values()) + 500, { message: 'the last due time passed' });
    const { messages: late } = await call<{ messages: Fetched[] }>(`/mmmq/consumers/${CONSUMER}/fetch`, { max: 500, waitMs: 500 });
    for (const { id } of late) received.set(id, [...(received.get(id) ?? []), Date.now()]);

    expect(received.size).toBe(MESSAGES - CANCELLED);
    expect([...cancelled].filter((id) => received.has(id))).toEqual([]);
    const twice = [...received].filter(([, times]) => times.length > 1).map(([id]) => id);
    expect(twice).toEqual([]);
    const early = [...received].filter(([id, [at]]) => at < dueAt.get(id)!).map(([id, [at]]) => `${id} ${dueAt.get(id)! - at} ms early`);
    expect(early).toEqual([]);
  }, 120_000);

  it('never delivers a message cancelled before the SIGKILL, though its subscription had not read the cancellation', async () => {
    const topic = 'order.cancel-kill';
    broker = await spawnBroker({ MMMQ_ROOT_DIR: dir() });
    await call('/mmmq/dispatchers', { consumerId: CONSUMER, pattern: topic });
    const due = Date.now() + FIRST_DUE_MS;
    await call('/mmmq/messages', { topic, id: 'cancelled', content: 'cancelled', deliverAt: new Date(due).toISOString() });
    // Between it and its cancellation: the subscription reads only as far as its fetches need.
    const plain = Array.from({ length: 100 }, (_, n) => ({ topic, id: `plain-${n}`, content: n }));
    await call('/mmmq/messages/batch', { messages: plain });
    await call('/mmmq/scheduled/cancel', { topic, id: 'cancelled' });
    expect(Date.now()).toBeLessThan(due);
    // One message fetched and acknowledged (durably): the state on disk holds the scheduled one, read, as waiting.
    const { messages } = await call<{ messages: Fetched[] }>(`/mmmq/consumers/${CONSUMER}/fetch`, { max: 1, waitMs: 1000 });
    expect(messages.map(({ id }) => id)).toEqual(['plain-0']);
    await call(`/mmmq/consumers/${CONSUMER}/ack`, { leases: messages.map((m) => m.lease) });
    received.clear();
    received.set('plain-0', [Date.now()]);

    broker.child.kill('SIGKILL');
    await broker.exited;
    broker = await spawnBroker({ MMMQ_ROOT_DIR: dir() });
    await waitFor(() => Date.now() > due, { message: 'the cancelled message to be due' });
    await consumeUntil(plain.length, 30_000);
    const { messages: late } = await call<{ messages: Fetched[] }>(`/mmmq/consumers/${CONSUMER}/fetch`, { max: 10, waitMs: 200 });
    expect(late).toEqual([]);
    expect([...received.keys()].sort()).toEqual(plain.map(({ id }) => id).sort());
  }, 120_000);
});
