import fs from 'node:fs';
import { Gauge, Histogram, Registry } from 'prom-client';
import { DEFAULT_MAX_TOPIC_SERIES } from '../../src/metrics/metrics.options';
import { DESCRIPTOR_ENTRIES_PER_READ, countOpenDescriptors } from '../../src/metrics/open-descriptors.collector';
import { expositionChunks } from '../../src/metrics/incremental-exposition';
import { EXPOSITION_CHUNK_BYTES } from '../../src/metrics/exposition-text';
import { ITEMS_PER_CLOCK_READ, TurnBudget } from '../../src/metrics/turn-budget';
import { ManyTopics } from './many-topics.fixture';

/** Label sets of the histogram: the default cap of topic series. */
const LABEL_SETS = 1_000;

function histogramOfTopics(): Registry {
  const registry = new Registry();
  const latency = new Histogram({
    name: 'latency_seconds',
    help: 'help',
    labelNames: ['topic'],
    buckets: [0.001, 0.01, 0.1],
    registers: [registry],
  });
  for (let n = 0; n < LABEL_SETS; n++) latency.observe({ topic: `topic.${n}` }, n / 10_000);
  return registry;
}

describe('a /metrics scrape in turns of the event loop', () => {
  it('reads a bounded number of label sets of a histogram per turn, and writes them as prom-client would', async () => {
    const registry = histogramOfTopics();
    const expected = await registry.metrics();
    // Which turn of the event loop reads each label set's values (prom-client's internal map, as the scrape reads it).
    let turn = 0;
    const readPerTurn = new Map<number, number>();
    const histogram = registry.getSingleMetric('latency_seconds') as unknown as { hashMap: Record<string, { bucketValues: unknown }> };
    for (const values of Object.values(histogram.hashMap)) {
      const bucketValues = values.bucketValues;
      Object.defineProperty(values, 'bucketValues', {
        get: () => {
          readPerTurn.set(turn, (readPerTurn.get(turn) ?? 0) + 1);
          return bucketValues;
        },
      });
    }
    let running = true;
    const tick = () => {
      turn++;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    // A budget of 0 ms: every clock read ends the turn, whatever the machine's speed.
    const chunks = await expositionChunks(registry, new TurnBudget(0)).finally(() => (running = false));

    expect(Buffer.concat(chunks).toString('utf8')).toBe(expected);
    expect(readPerTurn.size).toBeGreaterThan(1);
    // prom-client's get() reads (and makes 6 line objects of) all 1,000 in one turn.
    expect(Math.max(...readPerTurn.values())).toBeLessThanOrEqual(2 * ITEMS_PER_CLOCK_READ);
  });

  it('walks the topics and subscriptions a few dozen at a time, from the live collections (never a copy of all of them)', async () => {
    const broker = new ManyTopics(2_000);
    let turn = 0;
    const readPerTurn = new Map<number, number>();
    for (const topic of broker.topics.values()) {
      const offset = topic.tailOffset;
      Object.defineProperty(topic, 'tailOffset', {
        get: () => {
          readPerTurn.set(turn, (readPerTurn.get(turn) ?? 0) + 1);
          return offset;
        },
      });
    }
    // A copy of 100,000 topics or subscriptions is a turn of its own: the walk asks for the live iterations only.
    const fakes = broker.metrics as unknown as {
      queues: { list: () => unknown };
      subscriptionContainer: { subscriptionsOf: () => unknown };
    };
    fakes.queues.list = () => {
      throw new Error('the walk copied the topics');
    };
    fakes.subscriptionContainer.subscriptionsOf = () => {
      throw new Error('the walk copied the subscriptions');
    };
    let running = true;
    const tick = () => {
      turn++;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    await broker.metrics.walk(new TurnBudget(0)).finally(() => (running = false));

    // Each topic's offset is read a few times per pass (weight, gauges, its subscription's lag), in both families.
    expect(readPerTurn.size).toBeGreaterThan(10);
    expect(Math.max(...readPerTurn.values())).toBeLessThanOrEqual(10 * ITEMS_PER_CLOCK_READ);
  });

  it('writes the capped families from the walk in turns, not through prom-client collects setting 1,001 values each in one', async () => {
    const broker = new ManyTopics(2_000);
    const sets = jest.spyOn(Gauge.prototype, 'set');
    try {
      const text = await broker.metrics.scrape();
      expect(text.match(/^mmmq_topic_messages\{/gm)).toHaveLength(DEFAULT_MAX_TOPIC_SERIES + 1);
      // What is left: prom-client's process and Node.js gauges (a few dozen values).
      expect(sets.mock.calls.length).toBeLessThan(200);
    } finally {
      sets.mockRestore();
    }
  });

  it('cuts the text into chunks of about EXPOSITION_CHUNK_BYTES, never one string', async () => {
    const chunks = await expositionChunks(histogramOfTopics(), new TurnBudget());
    const bytes = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    expect(bytes).toBeGreaterThan(2 * EXPOSITION_CHUNK_BYTES);
    expect(chunks.length).toBeGreaterThan(2);
    // A chunk is cut once it reaches the size: at most one line more.
    for (const chunk of chunks) expect(chunk.length).toBeLessThan(EXPOSITION_CHUNK_BYTES + 1_000);
  });

  (process.platform === 'linux' ? it : it.skip)(
    'counts the open descriptors without listing them on the event loop (prom-client used readdirSync)',
    async () => {
      const readdirSync = jest.spyOn(fs, 'readdirSync');
      try {
        const broker = new ManyTopics(10);
        const text = await broker.metrics.scrape();
        const open = Number(/^process_open_fds (\d+)$/m.exec(text)?.[1]);
        expect(open).toBeGreaterThan(0);
        expect(readdirSync.mock.calls.filter(([path]) => String(path).startsWith('/proc/self/fd'))).toEqual([]);
      } finally {
        readdirSync.mockRestore();
      }
    },
  );

  (process.platform === 'linux' ? it : it.skip)('counts every open descriptor, read in batches', async () => {
    const opened: number[] = [];
    try {
      const before = await countOpenDescriptors();
      // More than one batch of entries.
      for (let n = 0; n < DESCRIPTOR_ENTRIES_PER_READ + 10; n++) opened.push(fs.openSync(__filename, 'r'));
      expect(await countOpenDescriptors()).toBe(before + opened.length);
    } finally {
      for (const fd of opened) fs.closeSync(fd);
    }
  });
});
