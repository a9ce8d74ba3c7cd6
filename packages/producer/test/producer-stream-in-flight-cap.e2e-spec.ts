import { BrokerApp, expectQuiet, range, startBroker, waitFor } from '@mmmq/test-support';
// The broker's internals, to hold its commits and watch what it takes in.
import { PublishIntake } from '../../broker/src/publish/publish-intake';
import { FileHandle } from '../../broker/src/storage/file-handle';
import { ProducerApp, startProducer } from './support/producer-app';

const MAX_IN_FLIGHT = 3;
const MAX_MESSAGES = 10;
const PRODUCED = 200;

describe('producer over the publish stream: batching.maxInFlight when the broker is slow', () => {
  let broker: BrokerApp;
  let app: ProducerApp | undefined;
  let release = (): void => undefined;

  beforeEach(async () => {
    broker = await startBroker({ stream: { port: 0 } });
  });
  afterEach(async () => {
    release();
    jest.restoreAllMocks();
    await app?.close();
    await broker.close();
  });

  it(`keeps at most ${MAX_IN_FLIGHT} batches of a topic unanswered, sends the rest once answers come, and loses nothing`, async () => {
    app = await startProducer({ broker: broker.streamUrl, batching: { maxMessages: MAX_MESSAGES, maxInFlight: MAX_IN_FLIGHT } });
    // Connect (and create the topic) before the broker turns slow.
    await app.producer.produce('sensor.reading', { n: -1 });

    const released = new Promise<void>((resolve) => (release = resolve));
    const sync = FileHandle.prototype.sync;
    jest.spyOn(FileHandle.prototype, 'sync').mockImplementation(async function (this: FileHandle, ...args) {
      await released;
      return sync.apply(this, args);
    });
    let unanswered = 0;
    let mostUnanswered = 0;
    const enqueue = PublishIntake.prototype.enqueue;
    const received = jest.spyOn(PublishIntake.prototype, 'enqueue').mockImplementation(async function (this: PublishIntake, messages) {
      const placed = await enqueue.call(this, messages);
      mostUnanswered = Math.max(mostUnanswered, ++unanswered);
      void placed.committed.finally(() => unanswered--).catch(() => undefined);
      return placed;
    });

    const producing = Promise.all(range(PRODUCED).map((n) => app!.producer.produce('sensor.reading', { n })));
    await waitFor(() => received.mock.calls.length >= MAX_IN_FLIGHT, { message: `${MAX_IN_FLIGHT} batches to reach the broker` });
    await expectQuiet(() => received.mock.calls.length, { forMs: 500, message: `no batch past the ${MAX_IN_FLIGHT} in flight` });
    expect(received.mock.calls.map(([messages]) => messages.length)).toEqual([MAX_MESSAGES, MAX_MESSAGES, MAX_MESSAGES]);

    release();
    const published = await producing;
    expect(published.map((message) => message.offset)).toEqual(range(PRODUCED, 1));
    expect(mostUnanswered).toBeLessThanOrEqual(MAX_IN_FLIGHT);
    expect(received.mock.calls.length).toBeGreaterThanOrEqual(PRODUCED / MAX_MESSAGES);
  });
});
