import { Host } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { PushTargetGuard } from '../../src/dispatch/push-target-guard';
import { PushTargetPolicy, PushTargetRefusedError } from '../../src/dispatch/push-target-policy';
import { FakeResolver } from '../support/fake-resolver';

describe('PushTargetGuard', () => {
  let resolver: FakeResolver;
  let guard: PushTargetGuard;
  const host = (url: string) => Host.parse(url);

  beforeEach(() => {
    resolver = new FakeResolver();
    guard = new PushTargetGuard(new PushTargetPolicy(), resolver, 50);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  describe('at registration', () => {
    it('refuses a name that resolves to a refused address, naming the name, its addresses and why', async () => {
      resolver.records.set('rebind.test', ['8.8.8.8', '169.254.169.254']);
      const check = guard.checkRegistration(host('http://rebind.test:80'));
      await expect(check).rejects.toThrow(PushTargetRefusedError);
      await expect(guard.checkRegistration(host('http://rebind.test:80'))).rejects.toThrow(
        'host http://rebind.test:80 is refused: rebind.test resolves to 8.8.8.8, 169.254.169.254, and 169.254.169.254 is a cloud metadata service',
      );
    });

    it('refuses a name resolving to a private address unless allowed', async () => {
      resolver.records.set('intranet.test', ['10.0.0.5']);
      await expect(guard.checkRegistration(host('http://intranet.test:80'))).rejects.toThrow('10.0.0.5 is in a private range');
      const allowing = new PushTargetGuard(new PushTargetPolicy(['10.0.0.0/8']), resolver, 50);
      await expect(allowing.checkRegistration(host('http://intranet.test:80'))).resolves.toBeUndefined();
    });

    it('accepts names resolving to allowed addresses, and names that do not resolve (now, or in time)', async () => {
      resolver.records.set('consumer.test', ['127.0.0.1', '::1']);
      resolver.records.set('slow.test', 'hang');
      resolver.records.set('flaky.test', 'EAI_AGAIN');
      for (const name of ['consumer.test', 'absent.test', 'slow.test', 'flaky.test']) {
        await expect(guard.checkRegistration(host(`http://${name}:80`))).resolves.toBeUndefined();
      }
      expect(Logger.prototype.warn).toHaveBeenCalledWith(expect.stringContaining('slow.test did not resolve within 50 ms'));
    });

    it('refuses metadata names and literal addresses without asking DNS', async () => {
      resolver.records.set('metadata.google.internal', ['8.8.8.8']);
      await expect(guard.checkRegistration(host('http://metadata.google.internal:80'))).rejects.toThrow('names a cloud metadata service');
      await expect(guard.checkRegistration(host('http://[::ffff:a9fe:a9fe]:80'))).rejects.toThrow('(169.254.169.254) is a cloud metadata');
      await expect(guard.checkRegistration(host('http://127.0.0.1:80'))).resolves.toBeUndefined();
      expect(resolver.asked).toEqual([]);
    });
  });

  describe('lookup, for the push sockets', () => {
    const lookup = (hostname: string, options: object) =>
      new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) =>
        guard.lookup(hostname, options, (error, address, family) => resolve({ error, address, family })),
      );

    it('answers like dns.lookup: all addresses, or the first of the asked family', async () => {
      resolver.records.set('consumer.test', ['::1', '127.0.0.1']);
      expect(await lookup('consumer.test', { all: true })).toMatchObject({
        error: null,
        address: [
          { address: '::1', family: 6 },
          { address: '127.0.0.1', family: 4 },
        ],
      });
      expect(await lookup('consumer.test', {})).toMatchObject({ error: null, address: '::1', family: 6 });
      expect(await lookup('consumer.test', { family: 4 })).toMatchObject({ error: null, address: '127.0.0.1', family: 4 });
      expect((await lookup('consumer.test', { family: 'IPv4', all: true })).address).toEqual([{ address: '127.0.0.1', family: 4 }]);
    });

    it('fails the connection when the name now resolves to a refused address', async () => {
      resolver.records.set('consumer.test', ['169.254.169.254']);
      const { error } = await lookup('consumer.test', { all: true });
      expect(error).toBeInstanceOf(PushTargetRefusedError);
      expect(error?.message).toBe(
        'push target consumer.test is refused: consumer.test resolves to 169.254.169.254, and 169.254.169.254 is a cloud ' +
          'metadata service; pushes there are always refused',
      );
    });

    it('passes DNS errors on, and reports a family with no address as not found', async () => {
      expect((await lookup('absent.test', {})).error?.code).toBe('ENOTFOUND');
      resolver.records.set('v6only.test', ['::1']);
      expect((await lookup('v6only.test', { family: 4 })).error?.code).toBe('ENOTFOUND');
    });
  });

  it('judges literal hosts before a push, once per host', () => {
    const spy = jest.spyOn(guard.policy, 'refusalOfHost');
    const refused = host('http://10.0.0.1:80');
    expect(guard.refusalBeforePush(refused)).toContain('private range');
    expect(guard.refusalBeforePush(refused)).toContain('private range');
    expect(guard.refusalBeforePush(host('http://consumer.test:80'))).toBeUndefined();
    expect(spy).toHaveBeenCalledTimes(2);
  });
});
