import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MmmqBrokerOptions } from '../../src';
import { BrokerApp, startBroker as startRealBroker } from '../http/broker-app.fixture';
import { startBrokerWithDns } from '../support/broker-with-dns';
import { FakeResolver } from '../support/fake-resolver';
import { TestConsumer, waitFor } from '@mmmq/test-support';
import { FAST_BACKOFF, publishAll } from './delivery.fixture';

describe('push targets (SSRF policy)', () => {
  describe('registration through the dispatcher API', () => {
    let broker: BrokerApp;
    const resolver = new FakeResolver();
    const onDisk = () => readFileSync(join(broker.rootDir, 'dispatchers.json'), 'utf8');
    const register = (host: string, consumerId = 'probe') =>
      broker.request('POST', '/mmmq/dispatchers', { consumerId, host, pattern: '**' });

    beforeAll(async () => {
      resolver.records.set('rebind.test', ['169.254.169.254']);
      resolver.records.set('mixed.test', ['93.184.216.34', 'fd00:ec2::254']);
      resolver.records.set('intranet.test', ['10.0.0.5']);
      resolver.records.set('consumer.test', ['127.0.0.1']);
      broker = await startBrokerWithDns({}, resolver);
      expect((await register('http://127.0.0.1:9000', 'kept')).status).toBe(201);
    });
    afterAll(() => broker.close());

    it.each([
      ['http://169.254.169.254:80', 'is a cloud metadata service; pushes there are always refused'],
      ['http://[fd00:ec2::254]:80', 'is a cloud metadata service'],
      ['http://100.100.100.200:80', 'is a cloud metadata service'],
      ['http://metadata.google.internal:80', 'names a cloud metadata service'],
      ['http://metadata.goog:80', 'names a cloud metadata service'],
      ['http://metadata:80', 'names a cloud metadata service'],
      ['http://instance-data:80', 'names a cloud metadata service'],
      ['http://169.254.1.1:80', 'is link-local'],
      ['http://[fe80::1]:80', 'is link-local'],
      ['http://0.0.0.0:80', 'is an unspecified address'],
      ['http://[::]:80', 'is an unspecified address'],
      ['http://224.0.0.1:80', 'is multicast'],
      ['http://255.255.255.255:80', 'is the broadcast address'],
      ['http://[::ffff:169.254.169.254]:80', '(169.254.169.254) is a cloud metadata service'],
      ['http://[::ffff:a9fe:a9fe]:80', '(169.254.169.254) is a cloud metadata service'],
      ['http://[::a9fe:a9fe]:80', '(169.254.169.254) is a cloud metadata service'],
      ['http://10.0.0.1:80', 'is in a private range'],
      ['http://172.16.0.1:80', 'is in a private range'],
      ['http://192.168.1.1:80', 'is in a private range'],
      ['http://100.64.0.1:80', 'is in a private range'],
      ['http://[fc00::1]:80', 'is in a private range'],
      ['http://[::ffff:10.0.0.1]:80', 'is in a private range'],
      ['http://rebind.test:80', 'rebind.test resolves to 169.254.169.254, and 169.254.169.254 is a cloud metadata service'],
      ['http://mixed.test:80', 'resolves to 93.184.216.34, fd00:ec2::254, and fd00:ec2::254 is a cloud metadata service'],
      ['http://intranet.test:80', 'intranet.test resolves to 10.0.0.5, and 10.0.0.5 is in a private range'],
      ['http://0xa9fea9fe:80', 'is not a host name'],
      ['http://2852039166:80', 'is not a host name'],
      ['http://0251.0376.0251.0376:80', 'is not a host name'],
    ])('refuses %s with 400 naming the host and why, and changes nothing', async (host, why) => {
      const before = onDisk();
      const created = await register(host);
      expect(created.status).toBe(400);
      expect(created.body).toEqual({ acknowledgement: 'NACK', message: expect.stringContaining(why) });
      if (!why.includes('not a host name')) expect(created.body.message).toContain(`host ${host} is refused: `);

      const replaced = await broker.request('PUT', '/mmmq/dispatchers/kept', { host, pattern: '**' });
      expect(replaced.status).toBe(400);
      expect(replaced.body.message).toContain(why);
      expect(onDisk()).toBe(before);
      expect((await broker.request('GET', '/mmmq/dispatchers/probe')).status).toBe(404);
      expect((await broker.request('GET', '/mmmq/dispatchers/kept')).body.host.address).toBe('127.0.0.1');
    });

    it('accepts loopback by default, public addresses, allowed names, and names that do not resolve yet', async () => {
      for (const [i, host] of ['http://[::1]:9000', 'http://8.8.8.8:80', 'http://consumer.test:80', 'http://not-yet.test:80'].entries()) {
        expect((await register(host, `ok-${i}`)).status).toBe(201);
      }
    });
  });

  it('lets delivery.allowedNetworks open a private range, and only that one', async () => {
    const resolver = new FakeResolver();
    resolver.records.set('intranet.test', ['10.20.30.40']);
    const broker = await startBrokerWithDns({ delivery: { allowedNetworks: ['loopback', '10.0.0.0/8'] } }, resolver);
    try {
      const register = (consumerId: string, host: string) =>
        broker.request('POST', '/mmmq/dispatchers', { consumerId, host, pattern: '**' });
      expect((await register('ten', 'http://10.1.2.3:8080')).status).toBe(201);
      expect((await register('ten-name', 'http://intranet.test:8080')).status).toBe(201);
      expect((await register('local', 'http://127.0.0.1:8080')).status).toBe(201);
      expect((await register('other-range', 'http://192.168.1.1:8080')).status).toBe(400);
      expect((await register('metadata', 'http://169.254.169.254:80')).status).toBe(400);
    } finally {
      await broker.close();
    }
  });

  it('checks the address a name resolves to when pushing: a refused one fails the push, which is not sent', async () => {
    const resolver = new FakeResolver();
    const consumer = new TestConsumer();
    await consumer.start();
    resolver.records.set('consumer.test', ['127.0.0.1']);
    const broker = await startBrokerWithDns({ delivery: FAST_BACKOFF }, resolver);
    try {
      const host = `http://consumer.test:${consumer.port}`;
      const created = await broker.request('POST', '/mmmq/dispatchers', { consumerId: 'billing', host, pattern: 'order.*' });
      expect(created.status).toBe(201);
      // DNS changes after registration, before the first push opens a connection.
      resolver.records.set('consumer.test', ['169.254.169.254']);
      await publishAll(broker, 'order.created', [{ n: 0 }]);

      const subscription = async () => (await broker.request('GET', '/mmmq/subscriptions')).body[0];
      await waitFor(async () => (await subscription())?.stats.failures >= 2, { message: 'two refused pushes' });
      const refused = await subscription();
      expect(refused).toMatchObject({ consumerId: 'billing', topic: 'order.created', lag: 1, state: 'active' });
      expect(refused.stats.lastError).toBe(
        `Delivery to billing at ${host}/mmmq/messages failed: push target consumer.test is refused: consumer.test ` +
          'resolves to 169.254.169.254, and 169.254.169.254 is a cloud metadata service; pushes there are always refused',
      );
      expect(consumer.requests).toBe(0);

      // Back to an allowed address: the retry connects and delivers.
      resolver.records.set('consumer.test', ['127.0.0.1']);
      await consumer.waitFor(() => consumer.received.length === 1);
      expect(consumer.contents()).toEqual([{ n: 0 }]);
    } finally {
      await broker.close();
      await consumer.stop();
    }
  });

  describe('at startup', () => {
    const startBroker = (options: MmmqBrokerOptions) => startRealBroker(options, { bodyParser: false, abortOnError: false });
    let rootDir: string;
    beforeEach(async () => {
      rootDir = await mkdtemp(join(tmpdir(), 'mmmq-ssrf-'));
    });
    afterEach(() => rm(rootDir, { recursive: true, force: true }));

    it('fails, naming the entry, when dispatchers.json holds a refused host', async () => {
      const entries = [
        { consumerId: 'fine', host: 'http://127.0.0.1:9000', pattern: '**' },
        { consumerId: 'imds', host: 'http://[::ffff:169.254.169.254]:80', pattern: '**' },
      ];
      writeFileSync(join(rootDir, 'dispatchers.json'), JSON.stringify(entries));
      await expect(startBroker({ persistence: { rootDir } })).rejects.toThrow(
        `${join(rootDir, 'dispatchers.json')} entry 1 (imds): host http://[::ffff:169.254.169.254]:80 is refused: ` +
          '::ffff:169.254.169.254 (169.254.169.254) is a cloud metadata service; pushes there are always refused',
      );
    });

    it('fails when a private host in dispatchers.json is no longer allowed, and starts once it is', async () => {
      writeFileSync(join(rootDir, 'dispatchers.json'), JSON.stringify([{ consumerId: 'ten', host: 'http://10.0.0.7:80', pattern: '**' }]));
      await expect(startBroker({ persistence: { rootDir } })).rejects.toThrow('entry 0 (ten): host http://10.0.0.7:80 is refused');
      const broker = await startBroker({ persistence: { rootDir }, delivery: { allowedNetworks: ['private'] } });
      await broker.close();
    });

    it('fails, naming the option, when dispatchers given in code have a refused host', async () => {
      const dispatchers = [{ consumerId: 'gcp', host: 'http://metadata.google.internal:80', pattern: '**' }];
      await expect(startBroker({ persistence: { rootDir }, dispatchers })).rejects.toThrow(
        'dispatchers[0] (gcp): host http://metadata.google.internal:80 is refused: metadata.google.internal names a cloud metadata service',
      );
    });

    it('fails, naming the option, on an allow-list entry it cannot read', async () => {
      await expect(startBroker({ persistence: { rootDir }, delivery: { allowedNetworks: ['loopback', '10.0.0.0/33'] } })).rejects.toThrow(
        'delivery.allowedNetworks[1] "10.0.0.0/33" has a prefix longer than 32 bits',
      );
    });
  });
});
