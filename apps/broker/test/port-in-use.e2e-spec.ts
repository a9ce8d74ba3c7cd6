import { createServer, Server } from 'node:net';
import { useTempDir } from '@mmmq/test-support';
import { spawnBroker } from './broker-process.fixture';

describe('the standalone broker on a port another process holds', () => {
  const dataDir = useTempDir('mmmq-port-in-use-');
  let holder: Server;

  beforeEach(async () => {
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  });
  afterEach(() => new Promise<void>((resolve) => holder.close(() => resolve())));

  it('says why, naming MMMQ_PORT, and exits 1 instead of running on without HTTP (its publish stream and topics closed)', async () => {
    const { port } = holder.address() as { port: number };
    const starting = spawnBroker({ MMMQ_PORT: String(port), MMMQ_STREAM_PORT: '0', MMMQ_ROOT_DIR: dataDir() });

    await expect(starting).rejects.toThrow(/exited \(code 1, signal null\)/);
    await expect(starting).rejects.toThrow(
      new RegExp(
        `Broker failed to start: HTTP cannot listen on 127\\.0\\.0\\.1:${port}: another process listens there already \\(EADDRINUSE\\); set MMMQ_PORT to another port`,
      ),
    );
  }, 60_000);

  it('says why, naming MMMQ_STREAM_PORT, and exits 1 when the publish stream cannot have its port', async () => {
    const { port } = holder.address() as { port: number };
    const starting = spawnBroker({ MMMQ_PORT: '0', MMMQ_STREAM_PORT: String(port), MMMQ_ROOT_DIR: dataDir() });

    await expect(starting).rejects.toThrow(/exited \(code 1, signal null\)/);
    await expect(starting).rejects.toThrow(
      new RegExp(
        `Broker failed to start: the publish stream cannot listen on 127\\.0\\.0\\.1:${port}: another process listens there already \\(EADDRINUSE\\); set MMMQ_STREAM_PORT to another port`,
      ),
    );
    await expect(starting).rejects.not.toThrow(/\n\s+at /);
  }, 60_000);
});
