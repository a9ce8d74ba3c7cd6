import { BrokerApp, expectQuiet, range, startBroker, waitFor } from '@mmmq/test-support';
import { STREAM_MAX_UNANSWERED } from '../../src';
import { PublishIntake } from '../../src/publish/publish-intake';
import { FileHandle } from '../../src/storage/file-handle';
import { STREAM_ON, StreamClient } from './stream-client';

/** Requests a producer sends while nothing becomes durable: well past the cap. */
const SENT = 3 * STREAM_MAX_UNANSWERED;
/** Frames of one socket read (64 KiB) that may be taken in after the cap is reached, before reading pauses. */
const ONE_READ_OF_FRAMES = 256;

describe('publish stream backpressure: a broker that cannot commit stops reading', () => {
  let broker: BrokerApp;
  /** Lets the held fsyncs go; called again after the test in case it failed while they were held. */
  let release = (): void => undefined;
  afterEach(async () => {
    release();
    jest.restoreAllMocks();
    await broker.close();
  });

  it(`takes in about STREAM_MAX_UNANSWERED (${STREAM_MAX_UNANSWERED}) requests, reads no more while none is answered, then stores all in order`, async () => {
    broker = await startBroker(STREAM_ON);
    const client = StreamClient.connect(broker);
    client.send(0, { topic: 'telemetry', content: 'warm-up' });
    expect((await client.answer(0)).status).toBe(200);

    // Every fsync waits for `release`: nothing becomes durable, so nothing is answered.
    const released = new Promise<void>((resolve) => (release = resolve));
    const sync = FileHandle.prototype.sync;
    jest.spyOn(FileHandle.prototype, 'sync').mockImplementation(async function (this: FileHandle, ...args) {
      await released;
      return sync.apply(this, args);
    });
    const enqueue = jest.spyOn(PublishIntake.prototype, 'enqueue');
    const takenIn = () => enqueue.mock.calls.length;

    client.sendAll(
      1,
      range(SENT).map((n) => ({ topic: 'telemetry', content: { n, padding: 'x'.repeat(200) } })),
    );
    await waitFor(() => takenIn() >= STREAM_MAX_UNANSWERED, { message: () => `the cap to be reached, ${takenIn()} taken in` });
    await expectQuiet(takenIn, { forMs: 500, message: 'no request read past the cap while none is answered' });
    expect(takenIn()).toBeLessThanOrEqual(STREAM_MAX_UNANSWERED + ONE_READ_OF_FRAMES);

    release();
    const answers = await Promise.all(range(SENT, 1).map((requestId) => client.answer(requestId)));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    // Stored in the order sent, nothing lost or duplicated while reading was paused.
    expect(answers.map((answer) => answer.body.offset)).toEqual(range(SENT, 1));
    expect(takenIn()).toBe(SENT);
    client.close();
  }, 60_000);
});
