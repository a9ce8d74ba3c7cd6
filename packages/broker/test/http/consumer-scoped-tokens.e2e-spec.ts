import { waitFor } from '@mmmq/test-support';
import { BrokerApp, HTTP_PLATFORMS, startBroker } from './broker-app.fixture';

const ADMIN = 'admin-token-0123456789abcd';
const BILLING = 'billing-token-0123456789ab';
const ANY_CONSUMER = 'any-consumer-token-012345';
const WORKER = 'billing-worker-token-01234';
const AUTH = {
  tokens: [
    { token: ADMIN, roles: ['admin' as const], name: 'ops' },
    { token: BILLING, roles: ['consume' as const], consumers: ['billing.*'], name: 'billing-team' },
    { token: ANY_CONSUMER, roles: ['consume' as const], name: 'any-consumer' },
    { token: WORKER, roles: ['consume' as const, 'publish' as const], consumers: ['billing.*'], name: 'billing-worker' },
  ],
};
const DENIED =
  /^The token billing-(team|worker) may not act for the consumer shipping; it may act for the consumers billing\.\* \(auth\.tokens\[\]\.consumers\)/;
const SHIPPING = { consumerId: 'shipping', pattern: 'order.*' };

/** A consume token reaches only the consumer ids its `consumers` patterns name, and `__` topics are admin's. */
describe.each(HTTP_PLATFORMS)('on %s, a consume token limited to billing.* consumers', (platform) => {
  let broker: BrokerApp;
  const send = async (token: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(broker.url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  const denied = async (answer: Promise<{ status: number; body: any }>, message: RegExp = DENIED) => {
    const { status, body } = await answer;
    expect({ status, message: body?.message }).toEqual({ status: 403, message: expect.stringMatching(message) });
  };

  beforeAll(async () => {
    broker = await startBroker({ auth: AUTH }, { bodyParser: false }, platform);
    expect((await send(ADMIN, 'POST', '/mmmq/dispatchers', SHIPPING)).status).toBe(201);
  });
  afterAll(() => broker.close());

  it('manages its own dispatchers and lists only those', async () => {
    expect((await send(BILLING, 'POST', '/mmmq/dispatchers', { consumerId: 'billing.invoices', pattern: 'order.*' })).status).toBe(201);
    expect((await send(BILLING, 'PUT', '/mmmq/dispatchers/billing.invoices', { pattern: 'invoice.*' })).status).toBe(200);
    expect((await send(BILLING, 'GET', '/mmmq/dispatchers/billing.invoices')).body).toMatchObject({ pattern: 'invoice.*' });
    const listed = await send(BILLING, 'GET', '/mmmq/dispatchers');
    expect(listed.body.map((dispatcher: { consumerId: string }) => dispatcher.consumerId)).toEqual(['billing.invoices']);
    const all = await send(ADMIN, 'GET', '/mmmq/dispatchers');
    expect(all.body.map((dispatcher: { consumerId: string }) => dispatcher.consumerId)).toEqual(['shipping', 'billing.invoices']);
    expect((await send(BILLING, 'DELETE', '/mmmq/dispatchers/billing.invoices')).status).toBe(204);
  });

  it("gets 403 naming its scope on another consumer's dispatcher, which stays as it was", async () => {
    const before = (await send(ADMIN, 'GET', '/mmmq/dispatchers/shipping')).body;
    await denied(send(BILLING, 'PUT', '/mmmq/dispatchers/shipping', { host: 'http://127.0.0.1:1', pattern: 'order.*' }));
    await denied(send(BILLING, 'DELETE', '/mmmq/dispatchers/shipping'));
    await denied(send(BILLING, 'GET', '/mmmq/dispatchers/shipping'));
    await denied(send(BILLING, 'DELETE', `/mmmq/dispatchers/shipping/hosts/${encodeURIComponent('http://127.0.0.1:1')}`));
    // Joining it as a competing push host is taking its pushes too.
    await denied(send(BILLING, 'POST', '/mmmq/dispatchers', { ...SHIPPING, host: 'http://127.0.0.1:1' }));
    expect((await send(ADMIN, 'GET', '/mmmq/dispatchers/shipping')).body).toEqual(before);
  });

  it("gets 403 settling another consumer's message by {topic, offset}, and the message stays leased to it", async () => {
    const { offset } = (await send(ADMIN, 'POST', '/mmmq/messages', { topic: 'order.placed', content: 1 })).body;
    let lease: string | undefined;
    await waitFor(
      async () => {
        [{ lease } = { lease: undefined }] = (
          await send(ADMIN, 'POST', '/mmmq/consumers/shipping/fetch', { max: 1, waitMs: 100 })
        ).body.messages;
        return lease !== undefined;
      },
      { message: 'shipping to fetch its message' },
    );
    const byOffset = { leases: [{ topic: 'order.placed', offset }] };
    await denied(send(BILLING, 'POST', '/mmmq/consumers/shipping/ack', byOffset));
    await denied(send(BILLING, 'POST', '/mmmq/consumers/shipping/nack', byOffset));
    await denied(send(BILLING, 'POST', '/mmmq/consumers/shipping/terminate', byOffset));
    await denied(send(BILLING, 'POST', '/mmmq/consumers/shipping/extend', byOffset));
    await denied(send(BILLING, 'POST', '/mmmq/consumers/shipping/recover', { member: 'anyone' }));
    await denied(send(BILLING, 'POST', '/mmmq/consumers/shipping/fetch', { max: 1 }));
    await denied(send(BILLING, 'POST', '/mmmq/consumers/shipping/ack', { upTo: { topic: 'order.placed', offset } }));
    await denied(send(BILLING, 'POST', '/mmmq/consumers/shipping/seek', { to: 'end', force: true }));
    await denied(send(BILLING, 'POST', '/mmmq/consumers/shipping/seek', { to: 'end', dryRun: true }));
    await denied(send(WORKER, 'POST', '/mmmq/transactions', { consumerId: 'shipping', settle: [lease] }));
    // Still shipping's: its own lease settles it now.
    expect((await send(ADMIN, 'POST', '/mmmq/consumers/shipping/ack', { leases: [lease] })).body).toMatchObject({ settled: 1 });
  });

  it("gets 403 on a dispatcher over the broker's own topics (dead letters, redrives); an admin token does not", async () => {
    const reserved =
      /^The token billing-team may not subscribe to (__dlq\.x|__redrive\.shipping|__\*\.\*\*): topics starting with __ are the broker's own/;
    await denied(send(BILLING, 'POST', '/mmmq/dispatchers', { consumerId: 'billing.spy', pattern: '__dlq.x' }), reserved);
    await denied(
      send(BILLING, 'POST', '/mmmq/dispatchers', { consumerId: 'billing.spy', patterns: ['order.*', '__redrive.shipping'] }),
      reserved,
    );
    await denied(send(BILLING, 'POST', '/mmmq/dispatchers', { consumerId: 'billing.spy', pattern: '__*.**' }), reserved);
    expect((await send(BILLING, 'POST', '/mmmq/dispatchers', { consumerId: 'billing.spy', pattern: 'order.*' })).status).toBe(201);
    await denied(send(BILLING, 'PUT', '/mmmq/dispatchers/billing.spy', { pattern: '__dlq.x' }), reserved);
    await denied(
      send(ANY_CONSUMER, 'POST', '/mmmq/dispatchers', { consumerId: 'spy', pattern: '__dlq.x' }),
      /^The token any-consumer may not subscribe to __dlq\.x/,
    );
    expect((await send(ADMIN, 'GET', '/mmmq/dispatchers/billing.spy')).body).toMatchObject({ pattern: 'order.*' });
    expect((await send(ADMIN, 'POST', '/mmmq/dispatchers', { consumerId: 'dlq-watcher', pattern: '__dlq.x' })).status).toBe(201);
  });

  it('still answers 400 to a malformed dispatcher, and keeps dead letters for admin tokens', async () => {
    expect((await send(BILLING, 'POST', '/mmmq/dispatchers', { consumerId: 'billing.bad' })).status).toBe(400);
    await denied(send(BILLING, 'GET', '/mmmq/dead-letters/billing.spy'), /^The token billing-team lacks the admin role/);
    await denied(send(BILLING, 'POST', '/mmmq/dead-letters/billing.spy/redrive', {}), /^The token billing-team lacks the admin role/);
  });

  it('leaves a consume token without consumers as it was: any consumer id', async () => {
    expect((await send(ANY_CONSUMER, 'PUT', '/mmmq/dispatchers/shipping', SHIPPING)).status).toBe(200);
    expect((await send(ANY_CONSUMER, 'GET', '/mmmq/dispatchers')).body).toHaveLength(3);
  });
});
