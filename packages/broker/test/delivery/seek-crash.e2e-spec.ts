import { spawnBroker, useTempDir, waitFor, type BrokerProcess } from '@mmmq/test-support';

const TOPIC = 'order.replayed';
const CONSUMER = 'replayer';
const MESSAGES = 20;
const SEEK_TO = 8;

/** A seek answered 200 is durable — a SIGKILL right after it does not undo it. */
describe('a seek across a SIGKILL of the broker process', () => {
  const dir = useTempDir('mmmq-seek-crash-');
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

  /** Fetches and acknowledges until `count` messages came, returning their offsets. */
  const consume = async (count: number): Promise<number[]> => {
    const offsets: number[] = [];
    await waitFor(
      async () => {
        const { messages } = await call<{ messages: Array<{ lease: string; offset: number }> }>(`/mmmq/consumers/${CONSUMER}/fetch`, {
          max: 100,
          waitMs: 100,
        });
        if (messages.length > 0) await call(`/mmmq/consumers/${CONSUMER}/ack`, { leases: messages.map((m) => m.lease) });
        offsets.push(...messages.map((m) => m.offset));
        return offsets.length >= count;
      },
      { message: `${count} messages to be consumed (got ${offsets.length})`, deadlineMs: 20_000 },
    );
    return offsets;
  };

  it('delivers again from the offset it moved to after the restart, and only from there', async () => {
    broker = await spawnBroker({ MMMQ_ROOT_DIR: dir() });
    await call('/mmmq/dispatchers', { consumerId: CONSUMER, pattern: TOPIC });
    for (let n = 0; n < MESSAGES; n++) await call('/mmmq/messages', { topic: TOPIC, content: { n } });
    expect(await consume(MESSAGES)).toEqual(Array.from({ length: MESSAGES }, (_, n) => n));

    expect(await call(`/mmmq/consumers/${CONSUMER}/seek`, { to: { offset: SEEK_TO } })).toMatchObject({ redeliver: MESSAGES - SEEK_TO });
    broker.child.kill('SIGKILL');
    expect(await broker.exited).toEqual({ code: null, signal: 'SIGKILL' });

    broker = await spawnBroker({ MMMQ_ROOT_DIR: dir() });
    const replayed = await consume(MESSAGES - SEEK_TO);
    expect(replayed).toEqual(Array.from({ length: MESSAGES - SEEK_TO }, (_, i) => SEEK_TO + i));
  });
});
