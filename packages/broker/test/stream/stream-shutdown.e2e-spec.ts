import { FileHandle } from '../../src/storage/file-handle';
import { startBroker } from '../http/broker-app.fixture';
import { STREAM_ON, StreamClient } from './stream-client';

describe('publish stream: shutting down answers what was received before closing', () => {
  afterEach(() => jest.restoreAllMocks());

  it('ACKs the requests whose commit is still running when the application closes, then closes the connection', async () => {
    const broker = await startBroker(STREAM_ON);
    const client = StreamClient.connect(broker);
    client.send(0, { topic: 't', content: 'warm-up' });
    await client.answer(0);
    const sync = FileHandle.prototype.sync;
    let commitStarted!: () => void;
    const started = new Promise<void>((resolve) => (commitStarted = resolve));
    jest.spyOn(FileHandle.prototype, 'sync').mockImplementation(async function (this: FileHandle) {
      commitStarted();
      await new Promise((resolve) => setTimeout(resolve, 200));
      return sync.call(this);
    });
    client.sendAll(
      1,
      Array.from({ length: 49 }, (_, n) => ({ topic: 't', content: n })),
    );
    await started;
    const closing = broker.close();
    for (let n = 1; n <= 49; n++) expect((await client.answer(n)).status).toBe(200);
    await closing;
    await client.closed;
  });
});
