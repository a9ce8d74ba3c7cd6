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

  it('says why and exits 1 instead of running on without HTTP (its publish stream and topics closed)', async () => {
    const { port } = holder.address() as { port: number };
    const starting = spawnBroker({ MMMQ_PORT: String(port), MMMQ_ROOT_DIR: dataDir() });

    await expect(starting).rejects.toThrow(/exited \(code 1, signal null\)/);
    await expect(starting).rejects.toThrow(/Broker failed to start.*EADDRINUSE/s);
  }, 60_000);
});
