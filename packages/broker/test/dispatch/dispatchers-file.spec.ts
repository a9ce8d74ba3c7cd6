import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDispatcherDefinition } from '../../src/dispatch/dispatcher-definition';
import { DispatchersFile, InvalidDispatchersFileError } from '../../src/dispatch/dispatchers-file';
import { useTempDir } from '../storage/temp-dir';

const entry = (consumerId: string, host: unknown = 'http://consumer-host:8080', pattern = 'order.*') => ({
  consumerId,
  host,
  pattern,
});

describe('DispatchersFile', () => {
  const dir = useTempDir();
  const path = () => join(dir(), 'dispatchers.json');

  it('creates a missing file as []', async () => {
    const file = new DispatchersFile(join(dir(), 'nested'));
    expect(await file.load()).toEqual([]);
    expect(JSON.parse(readFileSync(join(dir(), 'nested', 'dispatchers.json'), 'utf8'))).toEqual([]);
  });

  it('reads hosts given as URL strings or objects and writes them back as objects, in order', async () => {
    writeFileSync(path(), JSON.stringify([entry('b'), entry('a', { protocol: 'https', address: 'h', port: 8443 }, 'order.created')]));
    const file = new DispatchersFile(dir());
    const definitions = await file.load();
    expect(definitions.map((definition) => definition.consumerId)).toEqual(['b', 'a']);
    await file.save(definitions);
    expect(JSON.parse(readFileSync(path(), 'utf8'))).toEqual([
      {
        consumerId: 'b',
        host: { protocol: 'HTTP', address: 'consumer-host', port: 8080 },
        pattern: 'order.*',
        startFrom: 'earliest',
        batchSize: 1,
        maxInFlight: 1,
        maxDeliveries: 16,
        ackTimeoutMs: 30000,
        exclusive: false,
      },
      {
        consumerId: 'a',
        host: { protocol: 'HTTPS', address: 'h', port: 8443 },
        pattern: 'order.created',
        startFrom: 'earliest',
        batchSize: 1,
        maxInFlight: 1,
        maxDeliveries: 16,
        ackTimeoutMs: 30000,
        exclusive: false,
      },
    ]);
  });

  it.each([
    ['broken JSON', 'not json', /not valid JSON/],
    ['an object instead of an array', '{}', /must hold a JSON array/],
    ['null', 'null', /must hold a JSON array/],
    ['a duplicate consumerId', JSON.stringify([entry('a'), entry('a')]), /entry 1: duplicate consumerId a/],
    ['an invalid consumerId', JSON.stringify([entry('bad id!')]), /entry 0: .*consumer/i],
    ['an unknown protocol', JSON.stringify([entry('a', 'ftp://h:21')]), /entry 0: /],
    ['a host without a port', JSON.stringify([entry('a', 'http://h')]), /entry 0: /],
    [
      'maxInFlight above 16',
      JSON.stringify([{ ...entry('a'), maxInFlight: 17 }]),
      /entry 0: maxInFlight must be an integer from 1 to 16, got 17/,
    ],
    ['a blank pattern', JSON.stringify([entry('a', 'http://h:1', '  ')]), /entry 0: /],
    ['an unknown field', JSON.stringify([{ ...entry('a'), extra: 1 }]), /entry 0: unknown field\(s\) extra/],
    ['a missing field', JSON.stringify([{ consumerId: 'a', host: 'http://h:1' }]), /entry 0: missing field pattern/],
  ])('fails to load with %s, naming the problem', async (_, text, message) => {
    writeFileSync(path(), text);
    const loading = new DispatchersFile(dir()).load();
    await expect(loading).rejects.toThrow(InvalidDispatchersFileError);
    await expect(new DispatchersFile(dir()).load()).rejects.toThrow(message);
  });

  it('rejects consumer ids that cannot name a dead-letter topic', () => {
    expect(() => parseDispatcherDefinition(entry('a..b'), 'x')).toThrow(/cannot start or end with a dot/);
    expect(() => parseDispatcherDefinition(entry('.a'), 'x')).toThrow(/cannot start or end with a dot/);
    expect(parseDispatcherDefinition(entry('billing.order-created'), 'x').consumerId).toBe('billing.order-created');
  });
});
