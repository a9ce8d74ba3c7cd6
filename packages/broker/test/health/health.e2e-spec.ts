import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mountSmallFilesystem, startBroker as startTestBroker, waitFor } from '@mmmq/test-support';
import { LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BrokerReadinessIndicator, HealthOptions, MmmqBrokerModule, MmmqBrokerOptions } from '../../src';
import { DISK_FREE_SPACE_PROBE } from '../../src/storage';
import { BrokerApp, HTTP_PLATFORMS, startBroker } from '../http/broker-app.fixture';

const MiB = 2 ** 20;
const DISK_BYTES = 64 * MiB;
const MIN_FREE_BYTES = 24 * MiB;
/** Leaves about 16 MiB free: below the guard's threshold. */
const FILLER_BYTES = 48 * MiB;
const CHECK_INTERVAL_MS = 50;
const DISK_DOWN = { status: 'down', message: expect.stringContaining('persistence.diskGuard.minFreeBytes') };

const workDir = mkdtempSync(join(tmpdir(), 'mmmq-health-'));
const disk = mountSmallFilesystem(workDir, DISK_BYTES);
if (!disk.mounted) process.stderr.write(`health.e2e-spec (small disk) SKIPPED: ${disk.reason}\n`);
/** Skipped, with the reason printed, where no small file system can be mounted (not root, no loop devices). */
const onSmallDisk = disk.mounted ? it : it.skip;

/** The broker options plus the module's `health` option, which `forRoot` takes beside them. */
function withHealth(health: HealthOptions, options: MmmqBrokerOptions = {}): MmmqBrokerOptions {
  const all: MmmqBrokerOptions & { health: HealthOptions } = { ...options, health };
  return all;
}

describe('health probes', () => {
  let broker: BrokerApp | undefined;

  afterEach(async () => {
    await broker?.close();
    broker = undefined;
  });

  afterAll(() => {
    if (disk.mounted) disk.unmount();
    rmSync(workDir, { recursive: true, force: true });
  });

  it.each(HTTP_PLATFORMS)('answers live and ready with 200 and no token once the broker has started (%s)', async (platform) => {
    broker = await startBroker({ auth: { tokens: [{ token: 'a'.repeat(32), roles: ['admin'] }] } }, undefined, platform);
    const live = await fetch(`${broker.url}/health/live`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({
      status: 'ok',
      info: { process: { status: 'up' } },
      error: {},
      details: { process: { status: 'up' } },
    });
    const ready = await fetch(`${broker.url}/health/ready`);
    expect(ready.status).toBe(200);
    const up = { storage: { status: 'up' }, disk: { status: 'up' }, topics: { status: 'up' } };
    expect(await ready.json()).toEqual({ status: 'ok', info: up, error: {}, details: up });
    expect(ready.headers.get('cache-control')).toContain('no-store');
  });

  it('turns ready to 503 naming the disk while the disk guard refuses publishes, and back to 200 when space returns (probe replaced)', async () => {
    let free = 10 * MIN_FREE_BYTES;
    const warnings: string[] = [];
    const logger = {
      log() {},
      error: (line: string) => warnings.push(`ERROR ${line}`),
      warn: (line: string) => warnings.push(`WARN ${line}`),
    };
    broker = await startBrokerWithProbe(() => Promise.resolve(free), logger);
    expect((await fetch(`${broker.url}/health/ready`)).status).toBe(200);
    free = MIN_FREE_BYTES - 1;
    await waitFor(async () => (await fetch(`${broker!.url}/health/ready`)).status === 503, { message: 'ready to turn 503' });
    const down = await (await fetch(`${broker.url}/health/ready`)).json();
    expect(down).toMatchObject({ status: 'error', error: { disk: DISK_DOWN }, info: { storage: { status: 'up' } } });
    expect((await fetch(`${broker.url}/health/live`)).status).toBe(200);
    free = 10 * MIN_FREE_BYTES;
    await waitFor(async () => (await fetch(`${broker!.url}/health/ready`)).status === 200, { message: 'ready to return to 200' });
    // Said once, by the disk guard; a failing probe adds no line of its own (probes come every few seconds).
    expect(warnings).toEqual([expect.stringMatching(/^WARN Refusing publishes \(503\)/)]);
  });

  onSmallDisk('turns ready to 503 when the data directory’s disk fills, and back to 200 when the file is removed', async () => {
    if (!disk.mounted) return;
    broker = await startBroker({
      persistence: { rootDir: join(disk.dir, 'data'), diskGuard: { minFreeBytes: MIN_FREE_BYTES, checkIntervalMs: CHECK_INTERVAL_MS } },
    });
    expect((await fetch(`${broker.url}/health/ready`)).status).toBe(200);
    const filler = join(disk.dir, 'filler');
    writeFileSync(filler, Buffer.alloc(FILLER_BYTES, 1));
    await waitFor(async () => (await fetch(`${broker!.url}/health/ready`)).status === 503, { message: 'ready to turn 503 on a full disk' });
    expect(await (await fetch(`${broker.url}/health/ready`)).json()).toMatchObject({ status: 'error', error: { disk: DISK_DOWN } });
    expect((await broker.post('/mmmq/messages', JSON.stringify({ topic: 'full', content: 1 }))).status).toBe(503);
    rmSync(filler);
    await waitFor(async () => (await fetch(`${broker!.url}/health/ready`)).status === 200, {
      message: 'ready to return after space was freed',
    });
  });

  it('serves the probes under health.path, and no routes with health.enabled false (the checks stay injectable)', async () => {
    broker = await startBroker(withHealth({ path: 'ops/probes' }));
    expect((await fetch(`${broker.url}/ops/probes/ready`)).status).toBe(200);
    expect((await fetch(`${broker.url}/health/ready`)).status).toBe(404);
    await broker.close();
    broker = await startBroker(withHealth({ enabled: false }));
    expect((await fetch(`${broker.url}/health/live`)).status).toBe(404);
    // The checks stay injectable for the host's own health endpoint.
    expect(broker.app.get(BrokerReadinessIndicator).disk()).toEqual({ disk: { status: 'up' } });
  });

  it('is not ready before the application has bootstrapped (topics restored)', async () => {
    const rootDir = mkdtempSync(join(workDir, 'boot-'));
    const app = await NestFactory.create(MmmqBrokerModule.forRoot({ persistence: { rootDir } }), { bodyParser: false });
    try {
      const readiness = app.get(BrokerReadinessIndicator);
      expect(readiness.storage()).toEqual({ storage: { status: 'down', message: 'the topics on disk are not restored yet' } });
      await app.init();
      expect(readiness.storage()).toEqual({ storage: { status: 'up' } });
    } finally {
      await app.close();
    }
  });
});

/** A broker whose disk guard reads `probe` instead of statfs. */
function startBrokerWithProbe(probe: () => Promise<number>, logger: LoggerService): Promise<BrokerApp> {
  return startTestBroker(
    { persistence: { diskGuard: { minFreeBytes: MIN_FREE_BYTES, checkIntervalMs: CHECK_INTERVAL_MS } } },
    { overrides: [{ token: DISK_FREE_SPACE_PROBE, value: probe }], logger },
  );
}
