import { AddressInfo } from 'node:net';
import { BrokerApp, HTTP_PLATFORMS, startBroker } from './broker-app.fixture';
import { httpRequest, rawRequest } from '../support/raw-http';

const PUBLISH = '{"topic":"orders","content":1}';
const DISPATCHER = JSON.stringify({ consumerId: 'evil', host: 'http://127.0.0.1:1', pattern: '**' });
const length = (body: string) => `Content-Length: ${Buffer.byteLength(body)}`;

describe.each(HTTP_PLATFORMS)('on %s, a web page cannot drive a broker through a browser', (platform) => {
  let broker: BrokerApp;
  let port: number;
  const send = (method: string, path: string, headers: string[], body = '') =>
    rawRequest(port, httpRequest(method, path, body === '' ? headers : [...headers, length(body)], body));
  const stored = () => broker.topics.get('orders')?.tailOffset ?? 0;

  beforeAll(async () => {
    broker = await startBroker(
      { http: { allowedOrigins: ['http://console.test:3000'], allowedHosts: ['broker.internal'] } },
      { bodyParser: false },
      platform,
    );
    port = (broker.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => broker.close());

  it('refuses a cross-origin text/plain publish and dispatcher registration with 403, naming the origin', async () => {
    const headers = ['Content-Type: text/plain', 'Origin: http://evil.example'];
    for (const [path, body] of [
      ['/mmmq/messages', PUBLISH],
      ['/mmmq/dispatchers', DISPATCHER],
    ]) {
      const answer = await send('POST', path, headers, body);
      expect(answer.status).toBe(403);
      expect(answer.json).toEqual({
        acknowledgement: 'NACK',
        message: expect.stringMatching(/Cross-origin request from "http:\/\/evil\.example" refused.*http\.allowedOrigins/),
      });
    }
    const removal = await send('DELETE', '/mmmq/dispatchers/anyone', ['Origin: null']);
    expect(removal.status).toBe(403);
    expect(stored()).toBe(0);
    expect((await broker.request('GET', '/mmmq/dispatchers')).body).toEqual([]);
  });

  it('refuses a request a browser marks cross-site, even without Origin', async () => {
    const answer = await send('POST', '/mmmq/messages', ['Content-Type: application/json', 'Sec-Fetch-Site: cross-site'], PUBLISH);
    expect(answer.status).toBe(403);
    expect(stored()).toBe(0);
  });

  it('refuses a text/plain body with 415 when no Origin says where it came from', async () => {
    const answer = await send('POST', '/mmmq/messages', ['Content-Type: text/plain'], PUBLISH);
    expect(answer.status).toBe(415);
    expect(stored()).toBe(0);
  });

  it('accepts JSON from an allowed origin', async () => {
    const answer = await send('POST', '/mmmq/messages', ['Content-Type: application/json', 'Origin: http://console.test:3000'], PUBLISH);
    expect(answer.status).toBe(200);
  });

  it('lets pages read nothing new: a GET with a foreign Origin is answered, and the browser keeps it from the page', async () => {
    expect((await send('GET', '/mmmq/dispatchers', ['Origin: http://evil.example'])).status).toBe(200);
  });

  it.each(['evil.example', 'evil.example:8080', 'rebind.127.0.0.1.nip.io'])(
    'refuses the DNS-rebinding Host %s with 421 on reads and writes, naming it and http.allowedHosts',
    async (host) => {
      for (const [method, path, body] of [
        ['GET', '/mmmq/dispatchers', ''],
        ['POST', '/mmmq/messages', PUBLISH],
      ]) {
        const answer = await send(method, path, [`Host: ${host}`, 'Content-Type: application/json'], body);
        expect(answer.status).toBe(421);
        expect(answer.json.message).toMatch(/^Host ".*" is not served by this broker.*http\.allowedHosts/);
      }
    },
  );

  it.each(['127.0.0.1', 'localhost:9', '[::1]:8080', 'console.localhost', '10.0.0.7:80', 'broker.internal:8080'])(
    'serves the Host %s: an IP address, localhost, or a listed name',
    async (host) => {
      expect((await send('GET', '/mmmq/dispatchers', [`Host: ${host}`])).status).toBe(200);
    },
  );
});
