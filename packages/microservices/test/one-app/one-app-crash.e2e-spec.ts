import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, removeTempDir, spawnApp, waitFor, type AppProcess } from '@mmmq/test-support';

const FIXTURE = join(__dirname, 'fixtures/one-app-process.cjs');
const PUBLISH = 3_000;
/** Killed once this many publishes were ACKed: mid-run, with publishes in flight and a backlog to handle. */
const KILL_AFTER = 1_000;
/** Generous: a restart recovers the journal and handles the backlog on a busy two-core CI machine. */
const DEADLINE_MS = 90_000;

describe('one process with the broker, method, class and @EventPattern listeners and the producer, killed with SIGKILL mid-run', () => {
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

  const start = (publish: number, handleDelayMs: number) =>
    spawnApp('The one-app process', FIXTURE, {
      ROOT_DIR: join(dir, 'mmmq'),
      HANDLED_FILE: join(dir, 'handled.txt'),
      PUBLISH: String(publish),
      HANDLE_DELAY_MS: String(handleDelayMs),
    });
  const handled = () =>
    new Set(existsSync(join(dir, 'handled.txt')) ? readFileSync(join(dir, 'handled.txt'), 'utf8').split('\n').filter(Boolean) : []);

  it(
    'loses nothing acknowledged: after a restart every ACKed message is handled, by each kind of listener',
    async () => {
      running = start(PUBLISH, 10);
      await running.waitFor(/READY/, 'READY');
      await waitFor(() => (running!.output().match(/ACKED m-\d+\n/g) ?? []).length >= KILL_AFTER, {
        message: `${KILL_AFTER} ACKed publishes`,
        deadlineMs: DEADLINE_MS,
      });
      running.child.kill('SIGKILL');
      await running.exited;
      const acked = [...running.output().matchAll(/ACKED (m-(\d+))\n/g)].map((match) => ({ id: match[1], index: Number(match[2]) }));
      expect(acked.length).toBeGreaterThanOrEqual(KILL_AFTER);
      expect(acked.length).toBeLessThan(PUBLISH);
      const unhandled = acked.filter(({ id }) => !handled().has(id));
      // Handlers take 10 ms each: the kill leaves ACKed messages of every listener unhandled.
      expect([0, 1, 2].map((listener) => unhandled.some(({ index }) => index % 3 === listener))).toEqual([true, true, true]);

      running = start(0, 0);
      await running.waitFor(/READY/, 'READY after the restart');
      await waitFor(() => acked.every(({ id }) => handled().has(id)), {
        message: () =>
          `every one of ${acked.length} ACKed messages handled, missing ${acked
            .filter(({ id }) => !handled().has(id))
            .slice(0, 5)
            .map(({ id }) => id)
            .join(', ')}…`,
        deadlineMs: DEADLINE_MS,
      });
    },
    3 * DEADLINE_MS,
  );
});
