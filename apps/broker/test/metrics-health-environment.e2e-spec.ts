import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnBroker } from './broker-process.fixture';

describe('the standalone broker with the metrics and health endpoints set through the environment', () => {
  let rootDir: string;

  beforeAll(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-metrics-env-'));
  });
  afterAll(() => rm(rootDir, { recursive: true, force: true }));

  it('serves the metrics at MMMQ_METRICS_PATH and no probes with MMMQ_HEALTH=off', async () => {
    const broker = await spawnBroker({ MMMQ_ROOT_DIR: rootDir, MMMQ_METRICS_PATH: 'internal/metrics', MMMQ_HEALTH: 'off' });
    try {
      const metrics = await fetch(`${broker.url}/internal/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('mmmq_');
      expect((await fetch(`${broker.url}/metrics`)).status).toBe(404);
      expect((await fetch(`${broker.url}/health/live`)).status).toBe(404);
    } finally {
      broker.child.kill('SIGTERM');
      await broker.exited;
    }
  });

  it('serves the probes at MMMQ_HEALTH_PATH and no metrics with MMMQ_METRICS=off', async () => {
    const broker = await spawnBroker({ MMMQ_ROOT_DIR: rootDir, MMMQ_METRICS: 'off', MMMQ_HEALTH_PATH: 'probes' });
    try {
      expect((await fetch(`${broker.url}/probes/live`)).status).toBe(200);
      expect((await fetch(`${broker.url}/probes/ready`)).status).toBe(200);
      expect((await fetch(`${broker.url}/health/live`)).status).toBe(404);
      expect((await fetch(`${broker.url}/metrics`)).status).toBe(404);
    } finally {
      broker.child.kill('SIGTERM');
      await broker.exited;
    }
  });
});
