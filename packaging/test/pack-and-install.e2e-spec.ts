import { freePort } from '@mmmq/test-support';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AppProcess } from './support/app-process';
import { run } from './support/command';
import {
  pack,
  PUBLISHED_PACKAGES,
  PublishedPackage,
  REPOSITORY_ROOT,
  staleOutputs,
  tarballFile,
  tarballFiles,
} from './support/packed-packages';

const FIXTURE = resolve(__dirname, '../fixture');
/** The PostgreSQL .ci/run starts (trust auth, database `test`). */
const TEST_DATABASE_URL = process.env.MMMQ_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** The RabbitMQ .ci/run starts (guest/guest). */
const RABBITMQ_URL = 'amqp://guest:guest@127.0.0.1:5672';
/** A cold npm cache downloads about a hundred packages; a warm one installs in seconds. */
const INSTALL_TIMEOUT_MS = 300_000;
const BUILD_TIMEOUT_MS = 120_000;
/** Generous: a busy two-core machine may take a while to load Nest in a fresh process. */
const START_TIMEOUT_MS = 60_000;

/**
 * What a user gets from the registry: the eight packages packed as `pnpm publish` would pack them, installed with npm
 * into a fresh Nest application outside the monorepo (so nothing resolves to the workspace), compiled with the
 * application's own TypeScript, and run as docs/getting-started.md runs it (one application, then a broker and an
 * application in two processes); plus a hybrid application on the
 * Nest microservices transport of @mmmq/microservices (src/microservices, not on that page).
 */
describe('the packed packages in a fresh Nest application', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'mmmq-pack-'));
  const appDir = join(workDir, 'app');
  const tarballs = {} as Record<PublishedPackage, string>;
  const processes: AppProcess[] = [];
  let brokerUrl: Promise<string> | undefined;

  beforeAll(
    async () => {
      await run('npx', ['tsc', '-b', 'tsconfig.build.json'], REPOSITORY_ROOT, BUILD_TIMEOUT_MS);
      const stale = PUBLISHED_PACKAGES.flatMap(staleOutputs);
      if (stale.length > 0)
        throw new Error(
          `dist holds output of deleted sources, which would be published: ${stale.join(', ')}; delete those dist folders and build again`,
        );
      for (const pkg of PUBLISHED_PACKAGES) tarballs[pkg] = await pack(pkg, join(workDir, 'tarballs'));

      cpSync(FIXTURE, appDir, { recursive: true });
      const manifest = JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8'));
      for (const pkg of PUBLISHED_PACKAGES) manifest.dependencies[`@mmmq/${pkg}`] = `file:${tarballs[pkg]}`;
      writeFileSync(join(appDir, 'package.json'), JSON.stringify(manifest, null, 2));
      await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], appDir, INSTALL_TIMEOUT_MS);
      await run(process.execPath, [tsc(), '-p', 'tsconfig.json'], appDir, BUILD_TIMEOUT_MS);
    },
    INSTALL_TIMEOUT_MS + 3 * BUILD_TIMEOUT_MS,
  );

  afterAll(async () => {
    await Promise.all(processes.map((process) => process.stop()));
    if (!process.env.MMMQ_PACK_KEEP) rmSync(workDir, { recursive: true, force: true });
  });

  it.each(PUBLISHED_PACKAGES)('packs @mmmq/%s with its build, README and changelog, and no tests or build state', async (pkg) => {
    const files = await tarballFiles(tarballs[pkg]);

    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'CHANGELOG.md', 'dist/index.js', 'dist/index.d.ts']));
    // The broker also ships its admin console's page, scripts and styles (docs/operations.md#console); the
    // PostgreSQL package its migrations, which migrate() reads at run time.
    const shipped = { broker: /^console\/[a-z-]+\.(html|css|js)$/, postgres: /^migrations\/\d{4}_[a-z_]+\.sql$/ }[pkg as string] ?? /^$/;
    expect(
      files.filter((file) => !/^(package\.json|README\.md|CHANGELOG\.md|dist\/.+\.(js|d\.ts|js\.map))$/.test(file) && !shipped.test(file)),
    ).toEqual([]);
    if (pkg === 'broker') expect(files).toEqual(expect.arrayContaining(['console/index.html', 'console/main.js']));
    if (pkg === 'postgres') expect(files).toEqual(expect.arrayContaining(['migrations/0001_outbox.sql', 'migrations/0002_inbox.sql']));
    expect(files.filter((file) => /\.spec\.|tsbuildinfo|(^|\/)test\//.test(file))).toEqual([]);
  });

  it.each(PUBLISHED_PACKAGES)(
    'publishes @mmmq/%s with registry ranges for its workspace dependencies and types first in every export',
    async (pkg) => {
      const manifest = JSON.parse(await tarballFile(tarballs[pkg], 'package.json'));

      expect(JSON.stringify(manifest)).not.toContain('workspace:');
      if (pkg !== 'core') expect(manifest.dependencies['@mmmq/core']).toBe(`^${manifest.version}`);
      for (const [subpath, target] of Object.entries<Record<string, string> | string>(manifest.exports)) {
        if (subpath === './package.json') continue;
        expect(Object.keys(target)[0]).toBe('types');
      }
    },
  );

  it.each(['tsconfig.json', 'tsconfig.node10.json'])(
    'type-checks the published declarations with the application (%s, skipLibCheck off)',
    async (tsconfig) => {
      // tsconfig.json resolves through the exports maps (nodenext); tsconfig.node10.json through main, types and typesVersions.
      await run(process.execPath, [tsc(), '-p', tsconfig, '--noEmit', '--skipLibCheck', 'false'], appDir, BUILD_TIMEOUT_MS);
    },
  );

  it('resolves the subpaths @mmmq/core/testing and the internal entries @mmmq/microservices needs, and hides internal files', async () => {
    const script = `
      const testing = require('@mmmq/core/testing');
      if (typeof testing.InMemoryBroker !== 'function') throw new Error('no InMemoryBroker in @mmmq/core/testing');
      // Exported for @mmmq/microservices, which builds on them outside Nest's dependency injection.
      if (typeof require('@mmmq/consumer/internal').ConsumerRuntime !== 'function') throw new Error('no ConsumerRuntime in @mmmq/consumer/internal');
      if (typeof require('@mmmq/producer/internal').createProducer !== 'function') throw new Error('no createProducer in @mmmq/producer/internal');
      const hidden = [
        '@mmmq/core/dist/topic',
        '@mmmq/broker/dist/storage/topic-queue',
        '@mmmq/consumer/dist/handling/delivery-handler',
        '@mmmq/consumer/dist/internal',
        '@mmmq/producer/dist/internal',
        '@mmmq/microservices/dist/server/mmmq-server',
      ];
      for (const internal of hidden) {
        try { require(internal); } catch (error) {
          if (error.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') continue;
          throw error;
        }
        throw new Error(internal + ' was importable');
      }
      console.log('exports ok');`;

    await expect(run(process.execPath, ['-e', script], appDir, 30_000)).resolves.toContain('exports ok');
  });

  it('runs a producer and a listener on the in-memory broker of @mmmq/core/testing', async () => {
    const check = track(new AppProcess('in-memory check', 'dist/in-memory.check.js', appDir));

    await expect(check.exitCode(START_TIMEOUT_MS)).resolves.toBe(0);
    expect(check.log()).toContain('in memory: [Billing] Invoice for order 42: 9.50 (delivery 1)');
  });

  it('runs the one-application form: broker, listener and producer in one default Nest application, stopped by SIGINT', async () => {
    // Its own working directory, so that its ./mmmq is not the two-process broker's.
    const cwd = join(workDir, 'one-app');
    mkdirSync(cwd);
    const port = await freePort();
    const app = track(new AppProcess('one-app', join(appDir, 'dist/main.js'), cwd, { PORT: String(port) }));

    await app.waitFor(/Order 42 placed: order\.created @0/, START_TIMEOUT_MS);
    await app.waitFor(/\[Billing\] Invoice for order 42: 9\.50 \(delivery 1\)/, START_TIMEOUT_MS);
    expect(app.log()).toContain("1 listener(s) receive in process from this application's broker");
    // The page's curl, to the broker's route of the same application: its default body parser leaves the body alone.
    const published = await fetch(`http://127.0.0.1:${port}/mmmq/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ topic: 'order.created', content: { orderId: '43', amount: 5, coupon: 'FREE' } }),
    });
    expect(await published.json()).toMatchObject({ acknowledgement: 'ACK', topic: 'order.created', offset: 1 });
    await app.waitFor(
      /refused message .* from order\.created; the broker dead-letters it: .*property coupon should not exist/,
      START_TIMEOUT_MS,
    );
    await app.waitFor(/offset 1 REJECTED after 1 deliveries; dead-lettered/, START_TIMEOUT_MS);

    // Ctrl-C: the page's `app.enableShutdownHooks()`, with no options, ends it with code 0 once it shut down.
    app.signal('SIGINT');
    await expect(app.exitCode(START_TIMEOUT_MS)).resolves.toBe(0);
    expect(app.log()).toContain('All topic queues closed');
  });

  it('installs the mmmq bin: it publishes to the running broker and verifies a data directory', async () => {
    const mmmq = join(appDir, 'node_modules/.bin/mmmq');
    const url = await startedBroker();

    const ack = JSON.parse(
      await run(mmmq, ['--json', '--broker', url, 'publish', 'packed.cli', '{"from":"bin"}'], appDir, START_TIMEOUT_MS),
    );
    mkdirSync(join(workDir, 'data/topics'), { recursive: true });
    const verified = await run(mmmq, ['verify', join(workDir, 'data')], appDir, START_TIMEOUT_MS);

    expect(ack).toMatchObject({ acknowledgement: 'ACK', topic: 'packed.cli' });
    expect(verified).toContain('no problems');
  });

  it('runs the two-process form: delivers a produced message through the broker to the listener', async () => {
    const brokerUrl = await startedBroker();
    const app = track(
      new AppProcess('app', 'dist/two-process/main.js', appDir, { MMMQ_BROKER: brokerUrl, PORT: String(await freePort()) }),
    );

    await app.waitFor(/Order 42 placed: order\.created @0/, START_TIMEOUT_MS);
    await app.waitFor(/\[Billing\] Invoice for order 42: 9\.50 \(delivery 1\)/, START_TIMEOUT_MS);
    await app.waitFor(/\[Timing\] order\.created @0 handled in \d+ ms/, START_TIMEOUT_MS);

    // The page's curl: a field OrderCreated does not declare, refused by the global ValidationPipe.
    const published = await fetch(`${brokerUrl}/mmmq/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ topic: 'order.created', content: { orderId: '43', amount: 5, coupon: 'FREE' } }),
    });
    expect(published.status).toBe(200);
    await app.waitFor(
      /refused message .* from order\.created; the broker dead-letters it: .*property coupon should not exist/,
      START_TIMEOUT_MS,
    );
    // Ctrl-C: the page's `app.enableShutdownHooks()`, with no options, ends it with code 0 once it shut down.
    app.signal('SIGINT');
    await expect(app.exitCode(START_TIMEOUT_MS)).resolves.toBe(0);
  });

  it("delivers an event MmmqClient emits to an @EventPattern handler on MmmqServer (hybrid, on the app's HTTP server)", async () => {
    const brokerUrl = await startedBroker();
    const app = track(
      new AppProcess('microservice', 'dist/microservices/main.js', appDir, { MMMQ_BROKER: brokerUrl, PORT: String(await freePort()) }),
    );

    await app.waitFor(/Shipment for order 7 emitted: shipment\.requested @0/, START_TIMEOUT_MS);
    await app.waitFor(
      /\[Shipping\] Shipping order 7 to Lyon \(validated, shipment\.requested @0, delivery 1, consumer shipping\.shipment\.requested\)/,
      START_TIMEOUT_MS,
    );
  });

  it('migrates a schema on PostgreSQL with the migrations shipped in @mmmq/postgres', async () => {
    const schema = `mmmq_pack_${process.pid}`;
    const script = `
      const { Pool } = require('pg');
      const { migrate, Outbox, Inbox, pgAdapter } = require('@mmmq/postgres');
      const pool = new Pool({ connectionString: ${JSON.stringify(TEST_DATABASE_URL)} });
      (async () => {
        try {
          const { applied } = await migrate(pool, { schema: '${schema}' });
          const again = await migrate(pool, { schema: '${schema}' });
          if (typeof Outbox !== 'function' || typeof Inbox !== 'function' || !pgAdapter) throw new Error('missing exports');
          console.log('applied ' + applied.join(',') + '; again ' + again.applied.length);
        } finally {
          await pool.query('DROP SCHEMA IF EXISTS ${schema} CASCADE');
          await pool.end();
        }
      })().catch((error) => { console.error(error); process.exit(1); });`;

    await expect(run(process.execPath, ['-e', script], appDir, 30_000)).resolves.toContain(
      'applied 0001_outbox.sql,0002_inbox.sql,0003_outbox_notify_waiting.sql; again 0',
    );
  });

  it('publishes and receives on RabbitMQ through the RabbitMqTransport of @mmmq/rabbitmq', async () => {
    const name = `mmmq-pack-${process.pid}`;
    const script = `
      const { RabbitMqTransport } = require('@mmmq/rabbitmq');
      const transport = new RabbitMqTransport({ url: ${JSON.stringify(RABBITMQ_URL)}, exchange: '${name}', queuePrefix: '${name}.' });
      (async () => {
        const subscriber = transport.createSubscriber();
        const publisher = transport.createPublisher();
        try {
          let delivered;
          const received = new Promise((resolve) => (delivered = resolve));
          const listener = { consumerId: 'billing', pattern: 'order.*', concurrency: 1, ackMode: 'auto' };
          await subscriber.subscribe(listener, async (delivery) => {
            delivered(delivery);
            return { acknowledgement: 'ACK' };
          });
          const message = { id: 'order-42', topic: 'order.created', headers: undefined, content: '{"orderId":"42"}', deliveryMode: undefined };
          await publisher.publish(message);
          const delivery = await received;
          console.log('received ' + delivery.id + ' ' + JSON.stringify(delivery.content) + ' delivery ' + delivery.deliveryCount);
        } finally {
          await publisher.close();
          await subscriber.close();
          await transport.deleteDeclared();
        }
      })().catch((error) => { console.error(error); process.exit(1); });`;

    await expect(run(process.execPath, ['-e', script], appDir, 30_000)).resolves.toContain('received order-42 {"orderId":"42"} delivery 1');
  });

  it("serves the admin console's page and scripts from the installed package", async () => {
    const brokerUrl = await startedBroker();

    const page = await fetch(`${brokerUrl}/mmmq/console`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/mmmq/console/assets/main.js');
    expect((await fetch(`${brokerUrl}/mmmq/console/assets/main.js`)).status).toBe(200);
  });

  /** One broker for the tests that need one: two on the fixture's `./mmmq` folder would share its files. */
  function startedBroker(): Promise<string> {
    brokerUrl ??= (async () => {
      const broker = track(new AppProcess('broker', 'dist/two-process/broker.js', appDir, { PORT: '0' }));
      const [, url] = await broker.waitFor(/Broker listening on (http:\/\/\S+)/, START_TIMEOUT_MS);
      return url;
    })();
    return brokerUrl;
  }

  /** The application's own TypeScript, not the monorepo's. */
  function tsc(): string {
    return join(appDir, 'node_modules/typescript/bin/tsc');
  }

  function track(process: AppProcess): AppProcess {
    processes.push(process);
    return process;
  }
});

describe('docs/getting-started.md', () => {
  const page = readFileSync(join(REPOSITORY_ROOT, 'docs/getting-started.md'), 'utf8');

  it('shows every source file of the tested application as it is', () => {
    const shown = [...page.matchAll(/```ts\n\/\/ src\/(\S+)\n([\s\S]*?)```/g)].map(([, name, body]) => ({ name, body }));

    expect(shown.map(({ name }) => name).sort()).toEqual([
      'app.module.ts',
      'invoice.listener.ts',
      'main.ts',
      'order-events.ts',
      'orders.service.ts',
      'timing.interceptor.ts',
      'two-process/app.module.ts',
      'two-process/broker.ts',
      'two-process/main.ts',
    ]);
    for (const { name, body } of shown) expect({ name, body }).toEqual({ name, body: readFileSync(join(FIXTURE, 'src', name), 'utf8') });
  });

  it("shows the tested application's tsconfig.json as it is", () => {
    const [, shown] = /```json\n(\{[\s\S]*?\})\n```/.exec(page) ?? [];

    expect(JSON.parse(shown)).toEqual(JSON.parse(readFileSync(join(FIXTURE, 'tsconfig.json'), 'utf8')));
  });
});
