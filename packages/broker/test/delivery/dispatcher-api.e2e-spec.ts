import { mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';

describe('dispatcher API', () => {
  let broker: BrokerApp;
  const onDisk = () => JSON.parse(readFileSync(join(broker.rootDir, 'dispatchers.json'), 'utf8'));
  const definition = (consumerId: string, host = 'HTTP://consumer-host:8080', pattern = 'order.*') => ({
    consumerId,
    host,
    pattern,
  });
  const stored = (consumerId: string, port = 8080, pattern = 'order.*', address = 'consumer-host') => ({
    consumerId,
    host: { protocol: 'HTTP', address, port },
    pattern,
    startFrom: 'earliest',
    batchSize: 1,
    maxInFlight: 1,
    maxDeliveries: 16,
    ackTimeoutMs: 30000,
    exclusive: false,
  });

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(() => broker.close());

  it('lists none at first, and the file holds []', async () => {
    expect(await broker.request('GET', '/mmmq/dispatchers')).toMatchObject({ status: 200, body: [] });
    expect(onDisk()).toEqual([]);
  });

  it('creates with 201 (no DNS needed), lists it and writes it to the file', async () => {
    const created = await broker.request('POST', '/mmmq/dispatchers', definition('order-created'));
    expect(created).toMatchObject({ status: 201, body: stored('order-created') });
    expect((await broker.request('GET', '/mmmq/dispatchers')).body).toEqual([stored('order-created')]);
    expect((await broker.request('GET', '/mmmq/dispatchers/order-created')).body).toEqual(stored('order-created'));
    expect(onDisk()).toEqual([stored('order-created')]);
  });

  it('refuses a known consumerId with other settings with 409 and leaves the file alone', async () => {
    const response = await broker.request('POST', '/mmmq/dispatchers', definition('order-created', 'http://other:1', 'order.created'));
    expect(response.status).toBe(409);
    expect(response.body.message).toMatch(/already exists with other settings; PUT/);
    expect(onDisk()).toEqual([stored('order-created')]);
  });

  it('adds the host of a known consumerId with the same settings as a member (200), and removes it again', async () => {
    const joined = await broker.request('POST', '/mmmq/dispatchers', definition('order-created', 'http://other:1'));
    const both = {
      ...stored('order-created'),
      host: undefined,
      hosts: [stored('order-created').host, { protocol: 'HTTP', address: 'other', port: 1 }],
    };
    delete both.host;
    expect(joined).toMatchObject({ status: 200, body: both });
    expect(onDisk()).toEqual([both]);
    expect((await broker.request('POST', '/mmmq/dispatchers', definition('order-created', 'http://other:1'))).status).toBe(200);
    expect(onDisk()).toEqual([both]);
    const removed = await broker.request('DELETE', `/mmmq/dispatchers/order-created/hosts/${encodeURIComponent('http://other:1')}`);
    expect(removed.status).toBe(204);
    expect(onDisk()).toEqual([stored('order-created')]);
    const again = await broker.request('DELETE', `/mmmq/dispatchers/order-created/hosts/${encodeURIComponent('http://other:1')}`);
    expect(again.status).toBe(404);
  });

  it('refuses with 400 a join that would give the consumer more than 64 hosts, and leaves the file alone', async () => {
    // Addresses, not names: nothing to resolve. No topic matches, so nothing is pushed to them.
    const replicas = Array.from({ length: 65 }, (_, i) => `http://192.0.2.1:${8000 + i}`);
    const join = (hosts: string[]) => ({ consumerId: 'crowded', hosts, pattern: 'crowded.none' });
    expect((await broker.request('POST', '/mmmq/dispatchers', join(replicas.slice(0, 64)))).status).toBe(201);
    try {
      const before = onDisk();
      const refused = await broker.request('POST', '/mmmq/dispatchers', join(replicas.slice(63)));
      expect(refused.status).toBe(400);
      expect(refused.body.message).toBe('hosts: consumer crowded has 64 hosts; joining would make 65, more than 64');
      expect(onDisk()).toEqual(before);
      // One already a member is not one more.
      expect((await broker.request('POST', '/mmmq/dispatchers', join([replicas[3]]))).status).toBe(200);
    } finally {
      expect((await broker.request('DELETE', '/mmmq/dispatchers/crowded')).status).toBe(204);
    }
  });

  it.each([
    ['an invalid consumerId', definition('invalid+id')],
    ['a consumerId with a space', definition('has space')],
    ...[
      'http://h',
      'http://h:8080/',
      'http://h:8080/foo',
      'http://user@h:8080',
      'ftp://h:21',
      'h:8080',
      'http://h_x:8080',
      'http://h:0',
      'http://h:70000',
    ].map((host) => [`host ${host}`, definition('x', host)] as [string, unknown]),
    ['a missing field', { consumerId: 'x', host: 'http://h:1' }],
    ['both host and hosts', { consumerId: 'x', host: 'http://h:1', hosts: ['http://h:2'], pattern: 'a' }],
    ['an empty patterns list', { consumerId: 'x', patterns: [] }],
    ['maxDeliveries 0', { ...definition('x'), maxDeliveries: 0 }],
    ['ackTimeoutMs 10', { ...definition('x'), ackTimeoutMs: 10 }],
    ['exclusive "yes"', { ...definition('x'), exclusive: 'yes' }],
    ['a blank pattern', definition('x', 'http://h:1', '  ')],
    ['malformed JSON', '{"consumerId":'],
  ])('refuses %s with 400 and a message, changing nothing', async (_, body) => {
    const response = await broker.request('POST', '/mmmq/dispatchers', body);
    expect(response.status).toBe(400);
    expect(response.body.message).toEqual(expect.any(String));
    expect(onDisk()).toEqual([stored('order-created')]);
  });

  it('replaces in place with PUT (order kept), 404 for an unknown id, 400 for an invalid one', async () => {
    await broker.request('POST', '/mmmq/dispatchers', definition('second', 'http://second:9000', '**'));
    const moved = await broker.request('PUT', '/mmmq/dispatchers/order-created', {
      host: 'http://moved-host:9090',
      pattern: 'order.*',
    });
    expect(moved).toMatchObject({ status: 200, body: stored('order-created', 9090, 'order.*', 'moved-host') });
    expect(onDisk().map((entry: { consumerId: string }) => entry.consumerId)).toEqual(['order-created', 'second']);
    expect(onDisk()[0]).toEqual(stored('order-created', 9090, 'order.*', 'moved-host'));

    const absent = await broker.request('PUT', '/mmmq/dispatchers/absent', { host: 'http://h:1', pattern: '**' });
    expect(absent.status).toBe(404);
    expect(absent.body.message).toBe("No dispatcher for consumerId 'absent'");
    expect((await broker.request('PUT', '/mmmq/dispatchers/invalid+id', { host: 'http://h:1', pattern: '**' })).status).toBe(400);
    const mismatch = await broker.request('PUT', '/mmmq/dispatchers/second', { consumerId: 'other', host: 'http://h:1', pattern: '**' });
    expect(mismatch.status).toBe(400);
  });

  it('deletes with 204, 404 for an unknown id, 400 for an invalid one', async () => {
    const deleted = await broker.request('DELETE', '/mmmq/dispatchers/second');
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
    expect(onDisk().map((entry: { consumerId: string }) => entry.consumerId)).toEqual(['order-created']);
    expect((await broker.request('DELETE', '/mmmq/dispatchers/second')).status).toBe(404);
    expect((await broker.request('DELETE', '/mmmq/dispatchers/invalid+id')).status).toBe(400);
    expect((await broker.request('GET', '/mmmq/dispatchers/second')).status).toBe(404);
  });

  it('answers 500 and changes nothing when the file cannot be written', async () => {
    // A directory where the temp file must go fails the write even for root.
    mkdirSync(join(broker.rootDir, 'dispatchers.json.tmp'));
    try {
      const response = await broker.request('POST', '/mmmq/dispatchers', definition('unwritable'));
      expect(response.status).toBe(500);
    } finally {
      rmdirSync(join(broker.rootDir, 'dispatchers.json.tmp'));
    }
    expect(onDisk().map((entry: { consumerId: string }) => entry.consumerId)).toEqual(['order-created']);
    const listed = await broker.request('GET', '/mmmq/dispatchers');
    expect(listed.body.map((entry: { consumerId: string }) => entry.consumerId)).toEqual(['order-created']);
  });
});
