import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnBroker } from './broker-process.fixture';

describe('the standalone broker logs where it is and stops cleanly on SIGTERM and SIGINT', () => {
  let rootDir: string;

  beforeEach(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-server-'));
  });

  afterEach(() => rm(rootDir, { recursive: true, force: true }));

  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s closes every topic after the last publish and exits 0',
    async (signal) => {
      const broker = await spawnBroker({ MMMQ_ROOT_DIR: rootDir });
      expect(broker.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(broker.dataDir).toBe(rootDir);

      const response = await fetch(`${broker.url}/mmmq/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"topic":"orders","content":1}',
      });
      expect(response.status).toBe(200);

      broker.child.kill(signal);
      expect(await broker.exited).toEqual({ code: 0, signal: null });
      expect(broker.output()).toMatch(/All topic queues closed/);

      const restarted = await spawnBroker({ MMMQ_ROOT_DIR: rootDir });
      expect(restarted.output()).toMatch(/Restored 1 topics/);
      restarted.child.kill('SIGTERM');
      await restarted.exited;
    },
    120_000,
  );
});
