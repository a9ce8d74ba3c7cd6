import { AppProcess, freePort, spawnApp, useTempDir } from '@mmmq/test-support';
import { resolve } from 'node:path';

const REPOSITORY_ROOT = resolve(__dirname, '../../../..');
/** docs/getting-started.md's files, as the pack-and-install test installs them. */
const FIXTURE_SOURCES = resolve(REPOSITORY_ROOT, 'packaging/fixture/src');
/**
 * From source through ts-node, `@mmmq/*` resolved to the packages' sources, and the fixture's other imports
 * (class-validator) from pnpm's store, as an installed application would find them in its node_modules.
 */
const FROM_SOURCE = {
  nodeArgs: [
    '-r',
    resolve(REPOSITORY_ROOT, 'node_modules/ts-node/register/transpile-only'),
    '-r',
    resolve(REPOSITORY_ROOT, 'packages/microservices/test/support/source-paths.ts'),
  ],
  env: {
    TS_NODE_PROJECT: resolve(REPOSITORY_ROOT, 'tsconfig.json'),
    NODE_PATH: resolve(REPOSITORY_ROOT, 'node_modules/.pnpm/node_modules'),
  },
};

/**
 * Ctrl-C on the broker and the application of docs/getting-started.md, which call `app.enableShutdownHooks()` with
 * no options: Nest re-sends the signal after its shutdown, which would end them with 130; the MMMQ modules make
 * that a clean exit.
 */
describe("getting-started's broker and application on Ctrl-C", () => {
  const started: AppProcess[] = [];
  const dir = useTempDir('mmmq-getting-started-');

  afterEach(async () => {
    for (const process of started.splice(0))
      if (process.child.exitCode === null && process.child.signalCode === null) process.child.kill('SIGKILL');
  });

  function start(name: string, file: string, env: Record<string, string>, cwd: string): AppProcess {
    const app = spawnApp(name, resolve(FIXTURE_SOURCES, file), { ...FROM_SOURCE.env, ...env }, { cwd, nodeArgs: FROM_SOURCE.nodeArgs });
    started.push(app);
    return app;
  }

  it('exit 0 after a clean shutdown, the application once it has handled its order', async () => {
    const brokerPort = await freePort();
    const broker = start('The broker', 'two-process/broker.ts', { PORT: String(brokerPort) }, dir());
    await broker.waitFor(/Broker listening on /, 'that it listens');
    const app = start(
      'The application',
      'two-process/main.ts',
      { MMMQ_BROKER: `http://127.0.0.1:${brokerPort}`, PORT: String(await freePort()) },
      dir(),
    );
    await app.waitFor(/\[Billing\] Invoice for order 42: 9\.50/, 'the invoice');

    app.child.kill('SIGINT');
    expect(await app.exited).toEqual({ code: 0, signal: null });
    broker.child.kill('SIGINT');
    expect(await broker.exited).toEqual({ code: 0, signal: null });
    expect(broker.output()).toMatch(/All topic queues closed/);
  }, 120_000);
});
