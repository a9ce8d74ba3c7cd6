import { BrokerApp, HTTP_PLATFORMS, startBroker } from '../http/broker-app.fixture';
import { nonLoopbackAddress } from '../support/non-loopback-address';
import { rawRequest } from '../support/raw-http';

const ADMIN_TOKEN = 'console-admin-token-0123456789';
const PUBLISH_TOKEN = 'console-publish-token-0123456789';

describe.each(HTTP_PLATFORMS)('the console files on %s', (platform) => {
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker({}, { bodyParser: false }, platform);
  });
  afterAll(() => broker.close());

  it('serves the page and its scripts with a policy that runs only its own scripts and talks only to the broker', async () => {
    const page = await fetch(`${broker.url}/mmmq/console`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(await page.text()).toContain('<script type="module" src="/mmmq/console/assets/main.js">');

    const script = await fetch(`${broker.url}/mmmq/console/assets/main.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');

    const icon = await fetch(`${broker.url}/mmmq/console/assets/icon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
  });

  it('answers 404 for a file it does not have, whatever the name tries', async () => {
    for (const name of ['nope.js', '..%2Fpackage.json', '%2E%2E%2F%2E%2E%2Fsrc%2Findex.ts']) {
      expect((await fetch(`${broker.url}/mmmq/console/assets/${name}`)).status).toBe(404);
    }
  });
});

describe('where the console is not served', () => {
  it('answers 404 with the reason when console.enabled is false', async () => {
    const broker = await startBroker({ console: { enabled: false } });
    try {
      const page = await fetch(`${broker.url}/mmmq/console`);
      expect(page.status).toBe(404);
      expect(await page.text()).toContain('console.enabled is false');
      expect((await fetch(`${broker.url}/mmmq/console/assets/main.js`)).status).toBe(404);
      // Nothing is sampled for charts nobody can see.
      expect((await broker.request('GET', '/mmmq/console/data/history')).status).toBe(404);
    } finally {
      await broker.close();
    }
  });

  it('answers 404 while no token has the admin role, and serves it once one has', async () => {
    const publishOnly = await startBroker({ auth: { tokens: [{ token: PUBLISH_TOKEN, roles: ['publish'] }] } });
    try {
      const page = await fetch(`${publishOnly.url}/mmmq/console`);
      expect(page.status).toBe(404);
      expect(await page.text()).toContain('none has the admin role');
    } finally {
      await publishOnly.close();
    }
    const withAdmin = await startBroker({ auth: { tokens: [{ token: ADMIN_TOKEN, roles: ['admin'] }] } });
    try {
      expect((await fetch(`${withAdmin.url}/mmmq/console`)).status).toBe(200);
      // The page holds no data: the API it calls still wants the token.
      expect((await fetch(`${withAdmin.url}/mmmq/topics`)).status).toBe(401);
    } finally {
      await withAdmin.close();
    }
  });

  const remote = nonLoopbackAddress();
  (remote === undefined ? it.skip : it)(
    `answers 404 to a client on another address (${remote}) of a broker without tokens, which serves loopback only`,
    async () => {
      const everywhere = await startBroker({}, { bodyParser: false }, 'express', '0.0.0.0');
      try {
        const port = Number(new URL(everywhere.url).port);
        const page = await rawRequest(port, `GET /mmmq/console HTTP/1.1\r\nHost: ${remote}\r\nConnection: close\r\n\r\n`, remote);
        expect(page.status).toBe(404);
        expect(page.body).toContain('serves loopback clients only');
      } finally {
        await everywhere.close();
      }
    },
  );

  it('answers 421 for a Host the broker does not serve, as every route', async () => {
    const broker = await startBroker();
    try {
      const port = new URL(broker.url).port;
      const response = await rawRequest(Number(port), 'GET /mmmq/console HTTP/1.1\r\nHost: rebound.example\r\nConnection: close\r\n\r\n');
      expect(response.status).toBe(421);
    } finally {
      await broker.close();
    }
  });
});

describe("state-changing requests of the console's pages", () => {
  let broker: BrokerApp;
  const dispatcher = (consumerId: string) => JSON.stringify({ consumerId, pattern: 'order.*' });

  beforeAll(async () => {
    broker = await startBroker({ http: { allowedHosts: ['*'] } });
  });
  afterAll(() => broker.close());

  it("are admitted from the broker's own origin", async () => {
    const response = await fetch(`${broker.url}/mmmq/dispatchers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: broker.url, 'sec-fetch-site': 'same-origin' },
      body: dispatcher('own-origin'),
    });
    expect(response.status).toBe(201);
  });

  it('are refused from another port of the same host', async () => {
    const other = new URL(broker.url);
    other.port = String(Number(other.port) + 1);
    const response = await fetch(`${broker.url}/mmmq/dispatchers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: other.origin },
      body: dispatcher('other-port'),
    });
    expect(response.status).toBe(403);
  });

  it('are refused from a rebound name that only "*" lets in, though it is the origin the request was sent to', async () => {
    const port = Number(new URL(broker.url).port);
    const body = dispatcher('rebound');
    const response = await rawRequest(
      port,
      `POST /mmmq/dispatchers HTTP/1.1\r\nHost: rebound.example:${port}\r\nOrigin: http://rebound.example:${port}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(response.status).toBe(403);
    expect((await broker.request('GET', '/mmmq/dispatchers/rebound')).status).toBe(404);
  });
});
