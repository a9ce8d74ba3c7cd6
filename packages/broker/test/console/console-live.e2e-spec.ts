import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';
import { waitFor } from '@mmmq/test-support';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { FAST_BACKOFF, range } from '../delivery/delivery.fixture';
import { TestConsumer } from '../support/test-consumer';
import { STREAM_ON, StreamClient } from '../stream/stream-client';

/** Debian's Chromium, which `.ci/run` installs through apt when it is missing. */
const CHROMIUM = '/usr/bin/chromium';
/** The screenshots docs/operations.md shows: committed, so a look at them in review sees what changed. */
const IMAGES = join(__dirname, '..', '..', '..', '..', 'docs', 'images');
const VIEWPORT = { width: 1366, height: 900 };
const ADMIN_TOKEN = 'console-admin-token-0123456789';
const SCOPED_ADMIN_TOKEN = 'console-scoped-admin-0123456789';
const PUBLISH_TOKEN = 'console-publish-token-0123456789';
/** Messages published in each second of the charted run: a rise, a peak and a fall, so the lines have a shape. */
const WAVE = [2, 4, 7, 11, 16, 20, 22, 20, 16, 11, 7, 4, 2, 1, 3, 6, 9, 12];

const HAS_CHROMIUM = existsSync(CHROMIUM);

/**
 * Opens a page that fails the test on any console error, uncaught error or Content-Security-Policy violation
 * (Chromium logs a refused inline script or style as a console error; the listener reports the rest). `expected`:
 * errors a test causes on purpose (Chromium logs every 401 and 403 answer a refused token gets).
 */
async function strictPage(browser: Browser, problems: string[], expected?: RegExp): Promise<Page> {
  const page = await browser.newPage({ viewport: VIEWPORT });
  await page.addInitScript(
    "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI))",
  );
  page.on('console', (message) => {
    if (message.type() === 'error' && !expected?.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));
  return page;
}

/** Waits until the broker has taken a sample after the ones counted now. */
async function nextSample(broker: BrokerApp): Promise<void> {
  const { sequence } = (await broker.request('GET', '/mmmq/console/data/history?since=0')).body as { sequence: number };
  await waitFor(
    async () => ((await broker.request('GET', `/mmmq/console/data/history?since=${sequence}`)).body.sequence as number) > sequence,
    {
      message: `a sample after number ${sequence}`,
      pollMs: 100,
    },
  );
}

(HAS_CHROMIUM ? describe : describe.skip)(
  HAS_CHROMIUM ? 'the console’s charts, tables, publish form and members' : `the console's live pages (skipped: ${CHROMIUM} not found)`,
  () => {
    let browser: Browser;

    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    });
    afterAll(() => browser?.close());

    describe('on a broker without tokens', () => {
      let broker: BrokerApp;
      let page: Page;
      const problems: string[] = [];
      const consumer = new TestConsumer();

      beforeAll(async () => {
        await consumer.start();
        broker = await startBroker({ delivery: FAST_BACKOFF, ...STREAM_ON });
        await broker.addDispatcher('billing', consumer.url, '**');
        // A pull consumer that never fetches: its lag grows with every publish.
        expect((await broker.request('POST', '/mmmq/dispatchers', { consumerId: 'audit', pattern: '**' })).status).toBe(201);
        page = await strictPage(browser, problems);
      });
      afterEach(() => expect(problems.splice(0)).toEqual([]));
      afterAll(async () => {
        await page?.close();
        await broker.close();
        await consumer.stop();
      });

      it('charts the broker’s publish and delivery rates and lag, and keeps them over a reload', async () => {
        let published = 0;
        for (const [second, count] of WAVE.entries()) {
          await broker.publishAll(
            'order.created',
            range(count).map((n) => ({ second, n })),
          );
          await broker.publishAll(
            'invoice.paid',
            range(Math.ceil(count / 3)).map((n) => ({ second, n })),
          );
          published += count;
          await nextSample(broker);
        }
        await broker.caughtUp('billing', 'order.created');
        await broker.caughtUp('billing', 'invoice.paid');

        await page.goto(`${broker.url}/mmmq/console`);
        const publishedChart = page.getByRole('img', {
          name: /^Published per topic \(messages\/s\), last .*: order\.created now [\d.]+ msg\/s, peak \d/,
        });
        await publishedChart.waitFor();
        expect(Number(await publishedChart.getAttribute('data-peak'))).toBeGreaterThan(1);
        await page.getByRole('img', { name: /^Delivered per subscription .*billing · order\.created now/ }).waitFor();
        await page
          .getByRole('img', { name: new RegExp(`^Lag per subscription .*audit · order\\.created now ${published} messages`) })
          .waitFor();
        expect(await page.locator('figure.chart path.line').count()).toBeGreaterThanOrEqual(4);

        // The samples are the broker's: a reload draws the same lines at once.
        await page.reload();
        await publishedChart.waitFor();
        await page.getByRole('link', { name: 'invoice.paid' }).waitFor();
        const box = await page.locator('figure.chart svg').first().boundingBox();
        await page.mouse.move(box!.x + box!.width * 0.8, box!.y + box!.height / 2);
        await page.locator('.readout').filter({ hasText: 'order.created:' }).waitFor();
        await page.screenshot({ path: join(IMAGES, 'console-overview.png') });

        await page.getByRole('link', { name: 'order.created' }).click();
        await page
          .getByRole('img', { name: /^Published to order\.created \(messages\/s\), last .*: order\.created now [\d.]+ msg\/s, peak \d/ })
          .waitFor();
        await page.getByRole('img', { name: new RegExp(`^Lag per consumer .*audit now ${published} messages`) }).waitFor();
        await page.screenshot({ path: join(IMAGES, 'console-topic.png') });
      });

      it('sorts the subscriptions by a column and filters them by any cell', async () => {
        await page.goto(`${broker.url}/mmmq/console#/overview`);
        const table = page.getByRole('table', { name: 'Lag and delivery rate of each subscription' });
        const firstRow = table.locator('tbody tr').first();
        // Sorted by lag, highest first, as the page opens: the consumer that never fetches.
        await firstRow.filter({ hasText: /^audit/ }).waitFor();
        await table.getByRole('button', { name: 'Consumer' }).click();
        expect(await table.getByRole('columnheader', { name: 'Consumer' }).getAttribute('aria-sort')).toBe('ascending');
        expect(await table.locator('tbody th').allTextContents()).toEqual(['audit', 'audit', 'billing', 'billing']);
        await table.getByRole('button', { name: 'Consumer' }).click();
        expect(await table.locator('tbody th').allTextContents()).toEqual(['billing', 'billing', 'audit', 'audit']);

        await page.getByLabel('Filter subscriptions').fill('invoice');
        await page.getByText('2 of 4 rows').waitFor();
        expect(await table.locator('tbody td:nth-child(2)').allTextContents()).toEqual(['invoice.paid', 'invoice.paid']);
        // The next refresh keeps both.
        await page
          .getByText(/^Updated /)
          .filter({ hasNotText: (await page.getByText(/^Updated /).textContent())! })
          .waitFor();
        expect(await table.locator('tbody th').allTextContents()).toEqual(['billing', 'audit']);
        await page.getByLabel('Filter subscriptions').fill('no such consumer');
        await table.getByRole('cell', { name: 'No row matches the filter.' }).waitFor();
      });

      it('publishes a message with headers through the form, and says why a body is refused', async () => {
        await page.goto(`${broker.url}/mmmq/console#/publish`);
        await page.getByRole('heading', { name: 'Publish a message', level: 1 }).waitFor();
        await page.getByLabel('Topic').fill('order.created');
        await page.getByLabel('Headers (JSON object)').fill('{"region": "eu", "priority": 3}');
        await page.getByLabel('Body (JSON)').fill('{"orderId": "42", "note": <b>not JSON</b>}');
        await page.getByRole('button', { name: 'Publish' }).click();
        await page
          .getByRole('status')
          .filter({ hasText: /^Body is not valid JSON/ })
          .waitFor();
        const tail = (await broker.request('GET', '/mmmq/topics/order.created')).body.tailOffset as number;

        await page.getByLabel('Body (JSON)').fill('{"orderId": "42", "note": "<script>alert(1)</script>"}');
        await page.getByRole('button', { name: 'Publish' }).click();
        await page
          .getByRole('status')
          .filter({ hasText: `Published to order.created at offset ${tail} (id ` })
          .waitFor();
        await page.screenshot({ path: join(IMAGES, 'console-publish.png') });
        const [stored] = (await broker.request('GET', `/mmmq/topics/order.created/messages?from=${tail}&limit=1`)).body.messages;
        expect(stored).toMatchObject({
          headers: { region: 'eu', priority: 3 },
          content: { orderId: '42', note: '<script>alert(1)</script>' },
        });
        await consumer.waitFor(
          () => consumer.received.some((delivery) => (delivery.body.content as { orderId?: string }).orderId === '42'),
          {
            message: 'billing to receive the published message',
          },
        );
      });

      it('lists each subscription’s members: the push host delivering, the pull consumer with what it holds', async () => {
        await page.goto(`${broker.url}/mmmq/console#/members`);
        const members = page.getByRole('table', { name: 'Members of each subscription' });
        await members
          .getByRole('row', { name: new RegExp(`^${consumer.url.replace(/[.]/g, '\\.')} push billing order\\.created delivering 0`) })
          .waitFor();
        await members.getByRole('row', { name: /^— pull or in-process audit order\.created active/ }).waitFor();
      });

      it('lists the publish stream’s connections: who, what they sent and the last refusal', async () => {
        const client = StreamClient.connect(broker);
        try {
          client.send(1, { topic: 'order.created', content: { stream: true } });
          expect((await client.answer(1)).status).toBe(200);
          client.send(2, { topic: 'order.created' });
          expect((await client.answer(2)).status).toBe(400);
          await page.goto(`${broker.url}/mmmq/console#/members`);
          const connections = page.getByRole('table', { name: 'Open publish-stream connections' });
          const row = connections.getByRole('row', { name: /^127\.0\.0\.1:\d+ a loopback client \(authentication is off\)/ });
          await row.waitFor();
          const cells = await row.getByRole('cell').allTextContents();
          // The peer is the row's header; then client, since, requests, unanswered, refused, and the refusal (a 400 does not
          // fence the connection).
          expect(cells.slice(2, 5)).toEqual(['2', '0', '1']);
          expect(cells[5]).toMatch(/content/);
          expect(cells[5]).not.toContain('fenced');
        } finally {
          client.close();
        }
      });
    });

    describe('on a broker that requires tokens', () => {
      let broker: BrokerApp;
      let page: Page;
      const problems: string[] = [];

      beforeAll(async () => {
        broker = await startBroker({
          auth: {
            tokens: [
              { token: ADMIN_TOKEN, roles: ['admin'] },
              { token: SCOPED_ADMIN_TOKEN, roles: ['admin'], topics: ['audit.*'] },
              { token: PUBLISH_TOKEN, roles: ['publish'] },
            ],
          },
        });
        page = await strictPage(browser, problems, /^Failed to load resource: the server responded with a status of 40[13]/);
      });
      afterEach(() => expect(problems.splice(0)).toEqual([]));
      afterAll(async () => {
        await page?.close();
        await broker.close();
      });

      const signIn = async (token: string) => {
        await page.goto(`${broker.url}/mmmq/console#/publish`);
        await page.getByRole('textbox', { name: 'Admin token' }).fill(token);
        await page.getByRole('button', { name: 'Sign in' }).click();
      };
      const history = (token?: string) =>
        fetch(`${broker.url}/mmmq/console/data/history`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

      it('serves the samples to admin tokens only', async () => {
        expect((await history()).status).toBe(401);
        expect((await history(PUBLISH_TOKEN)).status).toBe(403);
        expect((await history(ADMIN_TOKEN)).status).toBe(200);
        expect(
          (await fetch(`${broker.url}/mmmq/console/data/history?since=-1`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status,
        ).toBe(400);
      });

      it('never shows the publish form to a token without the admin role', async () => {
        await signIn(PUBLISH_TOKEN);
        await page.getByRole('status').filter({ hasText: 'The broker refused the token' }).waitFor();
        expect(await page.getByRole('button', { name: 'Publish' }).count()).toBe(0);
      });

      it('publishes as admin; an admin token limited to other topics is refused, with the broker’s reason', async () => {
        await page.evaluate('sessionStorage.clear()');
        await signIn(ADMIN_TOKEN);
        await page.getByLabel('Topic').fill('order.created');
        await page.getByLabel('Body (JSON)').fill('{"by": "admin"}');
        await page.getByRole('button', { name: 'Publish' }).click();
        await page.getByRole('status').filter({ hasText: 'Published to order.created at offset 0' }).waitFor();

        await page.getByRole('button', { name: 'Forget token' }).click();
        await signIn(SCOPED_ADMIN_TOKEN);
        await page.getByLabel('Topic').fill('order.created');
        await page.getByLabel('Body (JSON)').fill('{"by": "scoped admin"}');
        await page.getByRole('button', { name: 'Publish' }).click();
        await page
          .getByRole('status')
          .filter({ hasText: /^The broker refused the message: .*order\.created/ })
          .waitFor();
        const topic = await fetch(`${broker.url}/mmmq/topics/order.created`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
        expect(((await topic.json()) as { tailOffset: number }).tailOffset).toBe(1);
      });
    });
  },
);
