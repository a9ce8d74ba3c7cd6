import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@mmmq/test-support';
import { ReplyRelay } from '../../src/replies/reply-relay';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';

const PUBLISHER = 'publisher-token-0123456789';
const CONSUMER = 'consumer-token-0123456789';

interface Collection {
  status: number;
  type: string | undefined;
  lines: unknown[];
  body: string;
  ended: Promise<void>;
}

/** `POST /mmmq/replies/{inbox}/fetch` asking for a stream; resolves once the answer's head is in. */
function collect(port: number, inbox: string, body: unknown, token = PUBLISHER): Promise<Collection> {
  return new Promise((resolve, reject) => {
    const call = http.request(`http://127.0.0.1:${port}/mmmq/replies/${inbox}/fetch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/x-ndjson, application/json', authorization: `Bearer ${token}` },
    });
    call.on('error', reject).on('response', (response) => {
      const collection: Collection = {
        status: response.statusCode ?? 0,
        type: response.headers['content-type'],
        lines: [],
        body: '',
        ended: undefined!,
      };
      let rest = '';
      response.on('data', (chunk: Buffer) => {
        collection.body += chunk.toString('utf8');
        const parts = (rest + chunk.toString('utf8')).split('\n');
        rest = parts.pop()!;
        if (collection.type?.startsWith('application/x-ndjson')) collection.lines.push(...parts.map((part) => JSON.parse(part) as unknown));
      });
      collection.ended = new Promise((done) => response.on('end', done));
      resolve(collection);
    });
    call.end(JSON.stringify(body));
  });
}

describe('a streamed reply collection (Accept: application/x-ndjson)', () => {
  let broker: BrokerApp;
  let port: number;
  const relay = () => broker.app.get(ReplyRelay);

  beforeAll(async () => {
    broker = await startBroker({
      auth: {
        tokens: [
          { token: PUBLISHER, roles: ['publish'] },
          { token: CONSUMER, roles: ['consume'] },
        ],
      },
    });
    port = (broker.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => broker.close());

  it('writes what the inbox holds, then each reply as it comes, on one answer, until waitMs has passed', async () => {
    relay().relay({ inbox: 'inbox-s', correlationId: 'c-0', content: 'held' });
    const started = Date.now();
    const collection = await collect(port, 'inbox-s', { waitMs: 1_500 });
    expect(collection.status).toBe(200);
    expect(collection.type).toContain('application/x-ndjson');
    await waitFor(() => collection.lines.length === 1, { message: 'the held reply' });
    await waitFor(() => relay().collecting('inbox-s'), { message: 'the stream waiting on the inbox again' });
    relay().relay({ inbox: 'inbox-s', correlationId: 'c-1', content: { total: 6 } });
    await waitFor(() => collection.lines.length === 2, { message: 'the second reply, on the same answer' });
    relay().relay({ inbox: 'inbox-s', correlationId: 'c-2', error: { name: 'RangeError', message: 'no' } });
    await collection.ended;
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    expect(collection.lines).toEqual([
      { inbox: 'inbox-s', correlationId: 'c-0', content: 'held' },
      { inbox: 'inbox-s', correlationId: 'c-1', content: { total: 6 } },
      { inbox: 'inbox-s', correlationId: 'c-2', error: { name: 'RangeError', message: 'no' } },
    ]);
  });

  it('ends when a newer collection of the inbox takes over, which gets the later replies', async () => {
    const older = await collect(port, 'inbox-n', { waitMs: 30_000 });
    await waitFor(() => relay().collecting('inbox-n'), { message: 'the first stream waiting' });
    const newer = await collect(port, 'inbox-n', { waitMs: 200 });
    await older.ended;
    relay().relay({ inbox: 'inbox-n', correlationId: 'c-3', content: 3 });
    await newer.ended;
    expect(older.lines).toEqual([]);
    expect(newer.lines).toEqual([{ inbox: 'inbox-n', correlationId: 'c-3', content: 3 }]);
  });

  it('refuses a consumer, and a bad body, with the JSON NACK of a long poll', async () => {
    const denied = await collect(port, 'inbox-d', { waitMs: 0 }, CONSUMER);
    await denied.ended;
    expect(denied.status).toBe(403);
    const invalid = await collect(port, 'inbox-d', { waitMs: 60_001 });
    await invalid.ended;
    expect(invalid.status).toBe(400);
    expect(JSON.parse(invalid.body)).toEqual({ acknowledgement: 'NACK', message: expect.stringMatching(/waitMs must be an integer/) });
  });
});
