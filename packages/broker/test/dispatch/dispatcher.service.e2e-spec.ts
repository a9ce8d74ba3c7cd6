import { mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { MmmqValidationError } from '@mmmq/core';
import { Dispatcher, DispatcherNotFoundError, DuplicateConsumerIdError, PushHostNotFoundError, PushTargetRefusedError } from '../../src';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { TestConsumer } from '../support/test-consumer';

describe('the Dispatcher service', () => {
  let broker: BrokerApp;
  let dispatcher: Dispatcher;
  const consumer = new TestConsumer();
  const onDisk = () => JSON.parse(readFileSync(join(broker.rootDir, 'dispatchers.json'), 'utf8'));
  const shown = (consumerId: string, port: number, pattern = 'order.*') => ({
    consumerId,
    host: { protocol: 'HTTP', address: '127.0.0.1', port },
    pattern,
    startFrom: 'earliest',
    batchSize: 1,
    maxInFlight: 1,
    maxDeliveries: 16,
    ackTimeoutMs: 30000,
    exclusive: false,
  });

  beforeAll(async () => {
    await consumer.start();
    broker = await startBroker();
    dispatcher = broker.app.get(Dispatcher);
  });
  afterAll(async () => {
    await broker.close();
    await consumer.stop();
  });

  it('adds a dispatcher that delivers, writes it to dispatchers.json, and shows it as the HTTP API does', async () => {
    const added = await dispatcher.add({ consumerId: 'billing', host: consumer.url, pattern: 'order.*' });
    expect(added).toEqual({ dispatcher: shown('billing', consumer.port), joined: false });
    expect(onDisk()).toEqual([shown('billing', consumer.port)]);
    expect(dispatcher.list()).toEqual((await broker.request('GET', '/mmmq/dispatchers')).body);
    expect(dispatcher.get('billing')).toEqual(shown('billing', consumer.port));

    await broker.post('/mmmq/messages', JSON.stringify({ topic: 'order.created', content: { n: 1 } }));
    await consumer.waitFor(() => consumer.received.length === 1);
    expect(consumer.contents()).toEqual([{ n: 1 }]);
  });

  it('joins a host to a consumer with the same settings, and refuses other settings with a typed 409 error', async () => {
    const joined = await dispatcher.add({ consumerId: 'billing', host: 'http://127.0.0.1:9', pattern: 'order.*' });
    expect(joined.joined).toBe(true);
    expect(joined.dispatcher.hosts).toEqual([shown('billing', consumer.port).host, shown('billing', 9).host]);
    await dispatcher.removeHost('billing', 'http://127.0.0.1:9');
    expect(dispatcher.get('billing')).toEqual(shown('billing', consumer.port));

    await expect(dispatcher.add({ consumerId: 'billing', host: consumer.url, pattern: 'invoice.*' })).rejects.toThrow(
      DuplicateConsumerIdError,
    );
    expect(onDisk()).toEqual([shown('billing', consumer.port)]);
  });

  it('validates as the HTTP API does, naming the field, and refuses push targets the SSRF policy forbids', async () => {
    await expect(dispatcher.add({ consumerId: 'a', host: consumer.url } as never)).rejects.toThrow('dispatcher: missing field pattern');
    await expect(dispatcher.add({ consumerId: 'a', pattern: 'x', priority: 1 } as never)).rejects.toThrow(
      'dispatcher: unknown field(s) priority',
    );
    await expect(dispatcher.add({ consumerId: 'a', pattern: 'x', batchSize: 0 })).rejects.toThrow(MmmqValidationError);
    const metadata = dispatcher.add({ consumerId: 'imds', host: 'http://169.254.169.254:80', pattern: '**' });
    await expect(metadata).rejects.toThrow(PushTargetRefusedError);
    await expect(metadata).rejects.toThrow(MmmqValidationError);
    expect(dispatcher.list().map((definition) => definition.consumerId)).toEqual(['billing']);
  });

  it('updates a dispatcher, refusing a consumerId that differs from the one named', async () => {
    const updated = await dispatcher.update('billing', { host: consumer.url, pattern: 'order.**', maxDeliveries: 5 });
    expect(updated).toEqual({ ...shown('billing', consumer.port, 'order.**'), maxDeliveries: 5 });
    expect(onDisk()).toEqual([updated]);
    await expect(dispatcher.update('billing', { consumerId: 'other', host: consumer.url, pattern: 'x' })).rejects.toThrow(
      'consumerId in the body must be billing, as in the path',
    );
    await expect(dispatcher.update('nobody', { pattern: 'x' })).rejects.toThrow(DispatcherNotFoundError);
  });

  it('reports unknown consumers and hosts with typed 404 errors', async () => {
    expect(() => dispatcher.get('nobody')).toThrow(DispatcherNotFoundError);
    await expect(dispatcher.remove('nobody')).rejects.toThrow(DispatcherNotFoundError);
    await expect(dispatcher.removeHost('billing', 'http://127.0.0.1:1')).rejects.toThrow(PushHostNotFoundError);
    expect(() => dispatcher.get('bad..id')).toThrow(MmmqValidationError);
  });

  it('changes nothing in memory when dispatchers.json cannot be written', async () => {
    // A directory where the temporary file goes makes the atomic write fail before the rename.
    const temp = join(broker.rootDir, 'dispatchers.json.tmp');
    mkdirSync(temp);
    try {
      await expect(dispatcher.add({ consumerId: 'audit', pattern: 'audit.*' })).rejects.toThrow(/EISDIR/);
      await expect(dispatcher.remove('billing')).rejects.toThrow(/EISDIR/);
    } finally {
      rmdirSync(temp);
    }
    expect(dispatcher.list().map((definition) => definition.consumerId)).toEqual(['billing']);
    expect(onDisk().map((definition: { consumerId: string }) => definition.consumerId)).toEqual(['billing']);
  });

  it('removes a dispatcher and its file entry', async () => {
    await dispatcher.remove('billing');
    expect(dispatcher.list()).toEqual([]);
    expect(onDisk()).toEqual([]);
  });
});
