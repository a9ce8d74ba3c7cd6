import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, removeTempDir, spawnApp, waitFor, type AppProcess } from '@mmmq/test-support';

const FIXTURE = join(__dirname, 'fixtures/one-app-process.cjs');
const PUBLISH = 3_000;
/** Killed once this many publishes were ACKed: mid-run, with publishes and deliveries in flight. */
const KILL_AFTER = 1_000;

describe('broker, listener and producer in one process, killed with SIGKILL mid-run', () => {
  let dir: string;
  let running: AppProcess | undefined;

  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(async () => {
    running?.child.kill('SIGKILL');
    await running?.exited;
    await removeTempDir(dir);
  });

  const start = (publish: number) =>
    spawnApp('The one-app process', FIXTURE, {
      ROOT_DIR: join(dir, 'mmmq'),
      HANDLED_FILE: join(dir, 'handled.txt'),
      PUBLISH: String(publish),
    });
  const handled = () =>
    new Set(existsSync(join(dir, 'handled.txt')) ? readFileSync(join(dir, 'handled.txt'), 'utf8').split('\n').filter(Boolean) : []);

  it('loses nothing acknowledged: after a restart every ACKed message is handled', async () => {
    running = start(PUBLISH);
    await running.waitFor(new RegExp(`ACKED o-${KILL_AFTER - 1}\\n`), `the ACK of message ${KILL_AFTER}`);
    running.child.kill('SIGKILL');
    await running.exited;
    const acked = [...running.output().matchAll(/ACKED (o-\d+)\n/g)].map((match) => match[1]);
    expect(acked.length).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(acked.length).toBeLessThan(PUBLISH);

    running = start(0);
    await running.waitFor(/READY/, 'READY after the restart');
    await waitFor(() => acked.every((id) => handled().has(id)), {
      message: () =>
        `every one of ${acked.length} ACKed messages handled, missing ${acked
          .filter((id) => !handled().has(id))
          .slice(0, 5)
          .join(', ')}…`,
    });
  });
});
