import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';
import { freePort, waitFor } from '@mmmq/test-support';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { FAST_BACKOFF, range } from '../delivery/delivery.fixture';
import { PullClient } from '../delivery/pull.fixture';
import { TestConsumer } from '../support/test-consumer';

/** Debian's Chromium, which `.ci/run` installs through apt when it is missing. */
const CHROMIUM = '/usr/bin/chromium';
/** Screenshots of every page, kept as test artifacts (gitignored); a few are copied into docs/images. */
const ARTIFACTS = join(__dirname, '..', '..', '..', '..', 'artifacts', 'console');
/** The screenshots docs/operations.md shows (committed). */
const IMAGES = join(__dirname, '..', '..', '..', '..', 'docs', 'images');
/** Wide enough for the subscription table, as on a laptop. */
const VIEWPORT = { width: 1366, height: 900 };
/** A token of the admin role, for the broker that requires tokens. */
const ADMIN_TOKEN = 'console-admin-token-0123456789';

const HAS_CHROMIUM = existsSync(CHROMIUM);

/** Uncaught errors and Content-Security-Policy violations of the pages under test: each test ends with none. */
const problems: string[] = [];

function watched(page: Page): Page {
  page.on('pageerror', (error) => problems.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content.Security.Policy/i.test(message.text())) problems.push(message.text());
  });
  return page;
}

(HAS_CHROMIUM ? describe : describe.skip)(
  HAS_CHROMIUM
    ? 'the admin console in headless Chromium'
    : `the admin console (skipped: ${CHROMIUM} not found; apt-get install -y chromium)`,
  () => {
    let browser: Browser;

    beforeAll(async () => {
      await mkdir(ARTIFACTS, { recursive: true });
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    });
    afterAll(() => browser?.close());
    afterEach(() => expect(problems.splice(0)).toEqual([]));

    describe('on a broker without tokens (loopback clients)', () => {
      let broker: BrokerApp;
      let page: Page;
      const consumer = new TestConsumer();
      let healed = false;

      beforeAll(async () => {
        await consumer.start();
        consumer.reply = (delivery) => ((delivery.body.content as { poison?: boolean }).poison && !healed ? 'REJECT' : 'ACK');
        broker = await startBroker({ delivery: FAST_BACKOFF });
        page = watched(await browser.newPage({ viewport: VIEWPORT }));
        page.on('dialog', (dialog) => void dialog.accept());
      });
      afterAll(async () => {
        await page?.close();
        await broker.close();
        await consumer.stop();
      });

      it('shows the overview with the topics published to', async () => {
        await broker.publishAll(
          'order.created',
          range(3).map((n) => ({ n })),
        );
        await page.goto(`${broker.url}/mmmq/console`);
        await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
        await expectText(page, '#overview-topics', '1');
        await page.getByRole('table', { name: 'Publish rate of each topic' }).getByRole('link', { name: 'order.created' }).waitFor();
        await shot(page, 'overview');
      });

      it('adds a dispatcher through the form, and its consumer receives the messages', async () => {
        await page.getByRole('link', { name: 'Dispatchers and subscriptions' }).click();
        await page.getByRole('heading', { name: 'Dispatchers and subscriptions', level: 1 }).waitFor();
        await page.getByLabel('Consumer id').fill('billing');
        await page.getByLabel('Push hosts').fill(consumer.url);
        await page.getByLabel('Topic patterns').fill('order.*');
        await page.getByRole('button', { name: 'Add dispatcher' }).click();
        await page.getByRole('status').filter({ hasText: 'Dispatcher billing added.' }).waitFor();

        const { body } = await broker.request('GET', '/mmmq/dispatchers/billing');
        expect(body).toMatchObject({ consumerId: 'billing', pattern: 'order.*', startFrom: 'earliest' });
        await consumer.waitFor(() => consumer.received.length === 3, { message: 'the 3 messages pushed to billing' });
        const subscriptions = page.getByRole('table', { name: 'Subscriptions (one per consumer and topic)' });
        await subscriptions.getByRole('row', { name: /billing order\.created active 3 0/ }).waitFor();
        await shot(page, 'dispatchers');
      });

      it('can be used with the keyboard alone: a pull consumer added through the form', async () => {
        await page.goto(`${broker.url}/mmmq/console#/dispatchers`);
        await page.getByRole('heading', { name: 'Dispatchers and subscriptions', level: 1 }).waitFor();
        await tabTo(page, 'Consumer id');
        expect(await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');
        await page.keyboard.type('audit');
        await page.keyboard.press('Tab'); // Push hosts: none, a pull consumer
        await page.keyboard.press('Tab');
        await page.keyboard.type('order.*');
        await tabTo(page, 'Add dispatcher');
        await page.keyboard.press('Enter');
        await page.getByRole('status').filter({ hasText: 'Dispatcher audit added.' }).waitFor();
        expect((await broker.request('GET', '/mmmq/dispatchers/audit')).body).toMatchObject({ consumerId: 'audit', pattern: 'order.*' });
      });

      it('shows the lag move as messages are published and consumed', async () => {
        const audit = new PullClient(broker, 'audit');
        await page.getByRole('link', { name: 'Overview' }).click();
        await expectText(page, '#overview-lag', '3'); // audit has not fetched the first three
        await broker.publishAll(
          'order.created',
          range(4).map((n) => ({ n: 3 + n })),
        );
        await expectText(page, '#overview-lag', '7');
        await shot(page, 'overview-lag');
        const leases: unknown[] = [];
        while (leases.length < 7) leases.push(...(await audit.fetch({ max: 7 })).map((message) => message.lease));
        await audit.ack(leases);
        await expectText(page, '#overview-lag', '0');
      });

      it('previews a seek of a consumer, then moves it back through the seek form: its messages come again', async () => {
        const audit = new PullClient(broker, 'audit');
        await page.goto(`${broker.url}/mmmq/console#/dispatchers`);
        await page.getByRole('heading', { name: 'Replay or skip (seek)' }).waitFor();
        await page.getByLabel('Consumer to move').fill('audit');
        await page.getByLabel('Only topic').fill('order.created');
        await page.getByLabel('Move to').selectOption('offset');
        await page.getByLabel('Time or offset').fill('4');
        await page.getByRole('button', { name: 'Preview seek' }).click();
        await page
          .getByRole('status')
          .filter({ hasText: 'Dry run: audit would re-deliver 3 and skip 0 message(s); 0 lease(s) would end.' })
          .waitFor();
        await page.getByRole('table', { name: 'What the seek would do' }).getByRole('row', { name: 'order.created 7 4 3 0 0' }).waitFor();
        const position = async () =>
          (await broker.request('GET', '/mmmq/subscriptions')).body.find(
            (row: { consumerId: string; topic: string }) => row.consumerId === 'audit' && row.topic === 'order.created',
          ).position;
        expect(await position()).toBe(7);

        await page.getByRole('button', { name: 'Seek', exact: true }).click();
        await page
          .getByRole('status')
          .filter({ hasText: 'Moved: audit re-delivers 3 and skips 0 message(s); 0 lease(s) ended.' })
          .waitFor();
        await shot(page, 'seek');
        expect(await position()).toBe(4);
        const again = await audit.fetch({ max: 10 });
        expect(again.map(({ offset, redelivered }) => [offset, redelivered])).toEqual([
          [4, true],
          [5, true],
          [6, true],
        ]);
        await audit.ack(again.map(({ lease }) => lease));
      });

      it('lists topics and browses messages by offset with their headers and content', async () => {
        await page.getByRole('link', { name: 'Topics' }).click();
        const topics = page.getByRole('table', { name: 'Topics and their logs' });
        await topics.getByRole('row', { name: /order\.created 0 7 7/ }).waitFor();
        await topics.getByRole('link', { name: 'order.created' }).click();
        await page.getByRole('heading', { name: 'Topic order.created', level: 1 }).waitFor();
        await page.getByLabel('From offset').fill('5');
        await page.getByRole('button', { name: 'Show messages' }).click();
        await page.getByRole('status').filter({ hasText: 'Offsets 5 to 6 of 0 to 6.' }).waitFor();
        const messages = page.getByRole('table', { name: 'Messages, oldest first' });
        expect(await messages.getByRole('row').count()).toBe(3);
        await messages.getByRole('row').filter({ hasText: '"n": 5' }).waitFor();
        await shot(page, 'topic');
      });

      it('shows a scheduled message with its due time', async () => {
        // Within the default limits.maxDelayMs (90 days), and never due while the test runs.
        const deliverAt = new Date(Date.now() + 30 * 24 * 3600_000).toISOString();
        const published = await broker.request('POST', '/mmmq/messages', { topic: 'reminder.later', content: { later: true }, deliverAt });
        expect(published.status).toBe(200);
        await page.goto(`${broker.url}/mmmq/console#/topics`);
        await page.getByRole('table', { name: 'Topics and their logs' }).getByRole('link', { name: 'reminder.later' }).click();
        await page.getByRole('heading', { name: 'Topic reminder.later', level: 1 }).waitFor();
        await page.getByRole('button', { name: 'Show messages' }).click();
        const messages = page.getByRole('table', { name: 'Messages, oldest first' });
        await messages.getByRole('columnheader', { name: 'Due at (scheduled)' }).waitFor();
        await messages.getByRole('row').filter({ hasText: deliverAt }).waitFor();
      });

      it('cancels a scheduled message after asking: it is marked cancelled, with no Cancel button left', async () => {
        const deliverAt = new Date(Date.now() + 30 * 24 * 3600_000).toISOString();
        const published = await broker.request('POST', '/mmmq/messages', { topic: 'reminder.cancel', content: { n: 1 }, deliverAt });
        const { id, offset } = published.body;
        await page.goto(`${broker.url}/mmmq/console#/topics/reminder.cancel`);
        const messages = page.getByRole('table', { name: 'Messages, oldest first' });
        await messages.getByRole('button', { name: `Cancel scheduled message ${id}` }).click();
        await page
          .getByRole('status')
          .filter({ hasText: `Cancelled ${id} (offset ${offset}), which was due at` })
          .waitFor();
        await messages.getByRole('row').filter({ hasText: deliverAt }).filter({ hasText: 'cancelled' }).waitFor();
        expect(await messages.getByRole('button', { name: /^Cancel scheduled message/ }).count()).toBe(0);
      });

      it('redrives a dead letter to its consumer', async () => {
        await broker.publish('order.created', { poison: true, note: '<script>alert(1)</script>' });
        await waitFor(async () => (await broker.deadLetters('billing')).length === 1, { message: 'the dead letter of billing' });
        const [letter] = await broker.deadLetters('billing');
        await page.goto(`${broker.url}/mmmq/console#/dead-letters`);
        await page.getByRole('table', { name: 'Dead letters by consumer' }).getByRole('row', { name: 'billing 1' }).waitFor();
        await page.getByRole('link', { name: 'billing' }).click();
        const letters = page.getByRole('table', { name: 'Dead letters of billing, oldest first' });
        // Shown as text, never as markup.
        await letters.getByText('"note": "<script>alert(1)</script>"').waitFor();
        await letters.getByText(`"mmmq-dlq-reason": "${letter.headers['mmmq-dlq-reason']}"`).waitFor();
        expect(await page.locator('main script').count()).toBe(0);
        await shot(page, 'dead-letters');

        healed = true;
        const before = consumer.received.length;
        await page.getByRole('checkbox', { name: `Select dead letter ${letter.id}` }).check();
        await page.getByRole('button', { name: 'Redrive selected' }).click();
        await page.getByRole('status').filter({ hasText: 'Redrove 1 dead letter: 1 queued for redelivery to billing.' }).waitFor();
        await consumer.waitFor(() => consumer.received.slice(before).some((delivery) => delivery.body.id === letter.id), {
          message: 'the redriven dead letter',
        });
      });

      it('purges the dead letters after asking in a dialog, and they stay purged', async () => {
        await page.goto(`${broker.url}/mmmq/console#/dead-letters/billing`);
        const letters = page.getByRole('table', { name: 'Dead letters of billing, oldest first' });
        await letters.getByRole('row').nth(1).filter({ hasText: '"poison": true' }).waitFor();

        // Cancelled first: nothing is purged.
        await page.getByRole('button', { name: 'Purge…' }).click();
        const dialog = page.getByRole('dialog', { name: 'Purge dead letters of billing?' });
        await dialog.waitFor();
        expect(await dialog.getByLabel('Purge the dead letters below offset').inputValue()).toBe('1');
        await shot(page, 'dead-letters-purge');
        await page.keyboard.press('Escape');
        await page.getByRole('status').filter({ hasText: 'Nothing purged.' }).waitFor();
        expect(await broker.deadLetters('billing')).toHaveLength(1);

        await page.getByRole('button', { name: 'Purge…' }).click();
        await dialog.getByRole('button', { name: 'Purge' }).click();
        await page.getByRole('status').filter({ hasText: 'Purged 1 dead letter; the oldest kept is at offset 1.' }).waitFor();
        await page.getByText('No dead letters kept (offsets below 1 were purged).').waitFor();
        expect(await broker.deadLetters('billing')).toEqual([]);
        expect((await broker.request('POST', '/mmmq/dead-letters/billing/redrive', {})).body).toEqual({ redriven: 0 });
        await page.goto(`${broker.url}/mmmq/console#/dead-letters`);
        await page.getByRole('table', { name: 'Dead letters by consumer' }).getByRole('row', { name: 'billing 0' }).waitFor();
      });

      it('shows a dispatcher that starts at a time and keeps that time when it is edited', async () => {
        const since = { consumerId: 'since', pattern: 'order.created', startFrom: { time: '2026-12-07T09:00:00Z' } };
        expect((await broker.request('POST', '/mmmq/dispatchers', since)).status).toBe(201);
        await page.goto(`${broker.url}/mmmq/console#/dispatchers`);
        await page
          .getByRole('table', { name: 'Dispatchers' })
          .getByRole('row', { name: /^since .* time 2026-12-07T09:00:00Z/ })
          .waitFor();
        await page.getByRole('button', { name: 'Edit since' }).click();
        expect(await page.getByLabel('Start time').inputValue()).toBe('2026-12-07T09:00:00Z');
        await page.getByLabel('Max deliveries').fill('7');
        await page.getByRole('button', { name: 'Save dispatcher' }).click();
        await page.getByRole('status').filter({ hasText: 'Dispatcher since saved.' }).waitFor();
        expect((await broker.request('GET', '/mmmq/dispatchers/since')).body).toMatchObject({ ...since, maxDeliveries: 7 });
        expect((await broker.request('DELETE', '/mmmq/dispatchers/since')).status).toBe(204);
      });

      it('edits a dispatcher through the form, then deletes it', async () => {
        await page.goto(`${broker.url}/mmmq/console#/dispatchers`);
        await page.getByRole('button', { name: 'Edit audit' }).click();
        await page.getByRole('heading', { name: 'Edit dispatcher audit' }).waitFor();
        expect(await page.getByLabel('Consumer id').getAttribute('readonly')).not.toBeNull();
        await page.getByLabel('Topic patterns').fill('order.created\ninvoice.*');
        await page.getByLabel('Max deliveries').fill('5');
        await page.getByRole('button', { name: 'Save dispatcher' }).click();
        await page.getByRole('status').filter({ hasText: 'Dispatcher audit saved.' }).waitFor();
        expect((await broker.request('GET', '/mmmq/dispatchers/audit')).body).toMatchObject({
          patterns: ['order.created', 'invoice.*'],
          maxDeliveries: 5,
        });

        await page.getByRole('button', { name: 'Delete audit' }).click();
        await page.getByRole('status').filter({ hasText: 'Dispatcher audit deleted.' }).waitFor();
        expect((await broker.request('GET', '/mmmq/dispatchers/audit')).status).toBe(404);
      });
    });

    describe('on a broker that requires tokens', () => {
      let broker: BrokerApp;
      let page: Page;

      beforeAll(async () => {
        broker = await startBroker({ auth: { tokens: [{ token: ADMIN_TOKEN, roles: ['admin'] }] } });
        page = watched(await browser.newPage({ viewport: VIEWPORT }));
      });
      afterAll(async () => {
        await page?.close();
        await broker.close();
      });

      it('asks for an admin token, refuses a wrong one, and works with the right one', async () => {
        await page.goto(`${broker.url}/mmmq/console`);
        await page.getByRole('heading', { name: 'Admin token needed' }).waitFor();
        await page.getByRole('textbox', { name: 'Admin token' }).fill('not-the-token-0123456789');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('status').filter({ hasText: 'The broker refused the token' }).waitFor();
        await shot(page, 'token');
        await page.getByRole('textbox', { name: 'Admin token' }).fill(ADMIN_TOKEN);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
        await page.getByRole('link', { name: 'Dispatchers and subscriptions' }).click();
        await page.getByLabel('Consumer id').fill('reports');
        await page.getByLabel('Topic patterns').fill('report.*');
        await page.getByRole('button', { name: 'Add dispatcher' }).click();
        await page.getByRole('status').filter({ hasText: 'Dispatcher reports added.' }).waitFor();
      });
    });
    describe('on a broker with a retention policy and a push host that is down', () => {
      let broker: BrokerApp;
      let page: Page;

      beforeAll(async () => {
        broker = await startBroker({
          topics: { overrides: [{ pattern: 'mail.*', retention: { ms: 3_600_000, bytes: 1_048_576, whenNeeded: 'delete' } }] },
          // A long first backoff: the member is still backing off whenever the page looks.
          delivery: { backoff: { initialMs: 60_000, maxMs: 60_000 } },
        });
        page = watched(await browser.newPage({ viewport: VIEWPORT }));
      });
      afterAll(async () => {
        await page?.close();
        await broker.close();
      });

      it("shows a topic's retention policy", async () => {
        await broker.publish('mail.sent', { to: 'a@example.com' });
        await page.goto(`${broker.url}/mmmq/console#/topics/mail.sent`);
        const retention = page.getByRole('table', { name: 'Retention' });
        await retention.getByRole('row', { name: '1 hour 1.0 MiB delete anyway 0 B' }).waitFor();
        expect((await broker.request('GET', '/mmmq/topics/mail.sent')).body.retention).toEqual({
          ms: 3_600_000,
          bytes: 1_048_576,
          whenNeeded: 'delete',
        });
        await shot(page, 'topic-retention');
      });

      it('shows a push member backing off after a failed push, with its last error', async () => {
        const down = `http://127.0.0.1:${await freePort()}`;
        await broker.addDispatcher('mailer', down, 'mail.*');
        await waitFor(async () => (await broker.subscription('mailer', 'mail.sent'))?.members[0]?.backingOffUntil !== undefined, {
          message: 'the mailer member to back off',
        });
        const [member] = (await broker.subscription('mailer', 'mail.sent')).members;
        expect(member).toMatchObject({ host: down, state: 'active', failedPushes: 1, lastError: expect.any(String) });

        // The overview counts it, and its number leads to the Members page.
        await page.goto(`${broker.url}/mmmq/console#/overview`);
        await expectText(page, '#overview-failing', '1');
        await page.locator('#overview-failing').click();
        const members = page.getByRole('table', { name: 'Members of each subscription' });
        const row = members.getByRole('row', { name: new RegExp(`^${down} push mailer mail\\.sent backing off 1 `) });
        await row.waitFor();
        await row.getByText(member.lastError).first().waitFor();
        await page.screenshot({ path: join(IMAGES, 'console-members.png') });
        await shot(page, 'members-backoff');
      });
    });
  },
);

/** Waits until the element's text is the number `expected` (the page polls; the number gets there or the test fails). */
async function expectText(page: Page, selector: string, expected: string): Promise<void> {
  await page
    .locator(selector)
    .filter({ hasText: new RegExp(`^${expected}$`) }) // digits only
    .waitFor({ timeout: 15_000 })
    .catch(async (error: unknown) => {
      throw new Error(`${selector} never read ${expected}; it reads ${await page.textContent(selector)}`, { cause: error });
    });
}

/** Presses Tab until the focused element has the accessible name `name` (a label or a button's text). */
async function tabTo(page: Page, name: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    await page.keyboard.press('Tab');
    // The focused control's label, or a button's text (the test's tsconfig has no DOM types: the code is a string).
    const focused = await page.evaluate<string>(
      "(document.activeElement?.labels?.[0]?.textContent ?? document.activeElement?.textContent ?? '')",
    );
    if (focused === name) return;
  }
  throw new Error(`Tab never reached ${name}`);
}

function shot(page: Page, name: string): Promise<Buffer> {
  return page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}
