import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mountSmallFilesystem, waitFor } from '@mmmq/test-support';
import { BrokerApp, startBroker } from './support/broker-app';
import { ProducerApp, startProducer } from './support/producer-app';

const MiB = 2 ** 20;
const workDir = mkdtempSync(join(tmpdir(), 'mmmq-producer-disk-guard-'));
const disk = mountSmallFilesystem(workDir, 48 * MiB);
if (!disk.mounted) process.stderr.write(`producer-stream-disk-guard.e2e-spec SKIPPED: ${disk.reason}\n`);
/** Skipped, with the reason printed, where no small file system can be mounted (not root, no loop devices). */
const onSmallDisk = disk.mounted ? it : it.skip;

describe('a producer on the publish stream while the broker’s disk guard refuses', () => {
  let broker: BrokerApp | undefined;
  let app: ProducerApp | undefined;

  afterAll(async () => {
    await app?.close();
    await broker?.close();
    if (disk.mounted) disk.unmount();
    rmSync(workDir, { recursive: true, force: true });
  });

  onSmallDisk('backs off on the 503, then stores the message with its id on a new connection once space is freed', async () => {
    if (!disk.mounted) return;
    // 24 MiB of 48 taken: below the guard's 32 MiB from the start.
    const filler = join(disk.dir, 'filler');
    writeFileSync(filler, Buffer.alloc(24 * MiB, 1));
    broker = await startBroker({
      persistence: { rootDir: join(disk.dir, 'data'), diskGuard: { minFreeBytes: 32 * MiB, checkIntervalMs: 50 } },
    });
    app = await startProducer({ broker: broker.streamUrl, retryDelayMs: 50, maxRetryDelayMs: 200, maxRetryCount: 200 });

    const published = app.producer.produce('order.created', { n: 1 }, { id: 'order-1' });
    await waitFor(() => app!.logger.warnings.some((warning) => /disk guard/.test(warning)), {
      message: () => `a refused attempt, logged as a retry; warnings: ${app!.logger.warnings.join(' | ')}`,
    });
    rmSync(filler);

    const message = await published;
    expect(message).toMatchObject({ id: 'order-1', topic: 'order.created', offset: 0 });
    const stored = await broker.stored('order.created');
    expect(stored.map(({ id, content }) => ({ id, content }))).toEqual([{ id: 'order-1', content: '{"n":1}' }]);
  });
});
