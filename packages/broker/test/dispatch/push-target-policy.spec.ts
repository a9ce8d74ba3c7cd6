import { Host } from '@mmmq/core';
import { AddressClass, classifyAddress, legacyIPv4 } from '../../src/dispatch/address-class';
import {
  DEFAULT_PUSH_ALLOWED_NETWORKS,
  parseAllowedNetwork,
  PushTargetPolicy,
  PushTargetRefusedError,
} from '../../src/dispatch/push-target-policy';

describe('classifyAddress', () => {
  it.each<[string, AddressClass]>([
    // cloud metadata services
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['fd00:0ec2:0000:0000:0000:0000:0000:0254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['192.0.0.192', 'metadata'],
    ['168.63.129.16', 'metadata'],
    // link-local
    ['169.254.0.1', 'link-local'],
    ['169.254.255.255', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    // unspecified
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['0:0:0:0:0:0:0:0', 'unspecified'],
    // multicast and broadcast
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    // loopback
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    // private
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.255', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fec0::1', 'private'],
    // public, including the neighbours of every range
    ['8.8.8.8', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['169.253.255.255', 'public'],
    ['11.0.0.0', 'public'],
    ['223.255.255.255', 'public'],
    ['2606:4700::1111', 'public'],
    ['fe7f::1', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address).kind).toBe(kind);
  });

  it.each<[string, string, AddressClass]>([
    ['::ffff:169.254.169.254', '169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', '169.254.169.254', 'metadata'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', '169.254.169.254', 'metadata'],
    ['::a9fe:a9fe', '169.254.169.254', 'metadata'],
    ['::169.254.169.254', '169.254.169.254', 'metadata'],
    ['::ffff:0:a9fe:a9fe', '169.254.169.254', 'metadata'],
    ['64:ff9b::a9fe:a9fe', '169.254.169.254', 'metadata'],
    ['64:ff9b::169.254.169.254', '169.254.169.254', 'metadata'],
    ['2002:a9fe:a9fe::1', '169.254.169.254', 'metadata'],
    ['::ffff:169.254.1.1', '169.254.1.1', 'link-local'],
    ['::ffff:0.0.0.0', '0.0.0.0', 'unspecified'],
    ['::ffff:255.255.255.255', '255.255.255.255', 'broadcast'],
    ['::ffff:224.0.0.1', '224.0.0.1', 'multicast'],
    ['::ffff:127.0.0.1', '127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', '127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', '10.0.0.1', 'private'],
    ['::ffff:a00:1', '10.0.0.1', 'private'],
    ['::ffff:8.8.8.8', '8.8.8.8', 'public'],
  ])('%s carries %s and is %s', (address, ipv4, kind) => {
    expect(classifyAddress(address)).toEqual({ kind, ipv4 });
  });

  it('refuses to classify what is not an IP address', () => {
    expect(() => classifyAddress('metadata.google.internal')).toThrow(TypeError);
    expect(() => classifyAddress('2852039166')).toThrow(TypeError);
  });
});

describe('legacyIPv4 (inet_aton spellings)', () => {
  it.each([
    ['2852039166', '169.254.169.254'],
    ['0xa9fea9fe', '169.254.169.254'],
    ['0XA9FEA9FE', '169.254.169.254'],
    ['025177524776', '169.254.169.254'],
    ['0251.0376.0251.0376', '169.254.169.254'],
    ['0xa9.0xfe.0xa9.0xfe', '169.254.169.254'],
    ['169.254.169.0xfe', '169.254.169.254'],
    ['169.254.43518', '169.254.169.254'],
    ['169.16689662', '169.254.169.254'],
    ['0', '0.0.0.0'],
    ['0x7f.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['10.0.0.1', '10.0.0.1'],
  ])('%s is %s', (name, ipv4) => {
    expect(legacyIPv4(name)).toBe(ipv4);
  });

  it.each(['consumer-host', '1.2.3.4.5', '256.1.1.1', '1.2.3.256', '4294967296', '08', '1..2', '0xg', '1.2.3.4a', ''])(
    '%p is no address',
    (name) => expect(legacyIPv4(name)).toBeUndefined(),
  );
});

describe('PushTargetPolicy', () => {
  const host = (address: string) => Host.parse({ protocol: 'HTTP', address, port: 80 });

  const alwaysRefused = [
    '169.254.169.254',
    'fd00:ec2::254',
    '100.100.100.200',
    '169.254.1.1',
    'fe80::1',
    '0.0.0.0',
    '::',
    '224.0.0.1',
    'ff02::1',
    '255.255.255.255',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '::a9fe:a9fe',
    '64:ff9b::a9fe:a9fe',
  ];

  it('allows loopback only by default', () => {
    expect(DEFAULT_PUSH_ALLOWED_NETWORKS).toEqual(['loopback']);
    const policy = new PushTargetPolicy();
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '8.8.8.8', '2606:4700::1111']) {
      expect(policy.refusalOfAddress(address)).toBeUndefined();
    }
    expect(policy.refusalOfAddress('10.0.0.1')).toMatch(/^10\.0\.0\.1 is in a private range .*allow it with delivery\.allowedNetworks/);
    expect(policy.refusalOfAddress('::ffff:10.0.0.1')).toMatch(/^::ffff:10\.0\.0\.1 \(10\.0\.0\.1\) is in a private range/);
  });

  it.each(alwaysRefused)('always refuses %s, whatever the allow-list', (address) => {
    const everything = new PushTargetPolicy(['loopback', 'private', '0.0.0.0/0', '::/0', '169.254.0.0/16']);
    expect(everything.refusalOfAddress(address)).toMatch(/pushes there are always refused$/);
    expect(new PushTargetPolicy().refusalOfAddress(address)).toMatch(/pushes there are always refused$/);
  });

  it('names what the address is', () => {
    const policy = new PushTargetPolicy();
    expect(policy.refusalOfAddress('169.254.169.254')).toBe('169.254.169.254 is a cloud metadata service; pushes there are always refused');
    expect(policy.refusalOfAddress('::ffff:a9fe:a9fe')).toBe(
      '::ffff:a9fe:a9fe (169.254.169.254) is a cloud metadata service; pushes there are always refused',
    );
    expect(policy.refusalOfAddress('fe80::1')).toContain('is link-local');
    expect(policy.refusalOfAddress('0.0.0.0')).toContain('is an unspecified address');
    expect(policy.refusalOfAddress('255.255.255.255')).toContain('is the broadcast address');
    expect(policy.refusalOfAddress('239.1.1.1')).toContain('is multicast');
  });

  it.each([
    [['private'], ['10.0.0.1', '172.16.5.4', '192.168.1.1', '100.64.0.1', 'fd00::1', '::ffff:10.0.0.1'], ['127.0.0.1', '::1']],
    [['loopback', 'private'], ['10.0.0.1', '127.0.0.1', '::1'], []],
    [['10.1.0.0/16'], ['10.1.2.3', '::ffff:10.1.2.3'], ['10.2.0.1', '192.168.1.1', '127.0.0.1']],
    [['10.1.2.3'], ['10.1.2.3'], ['10.1.2.4']],
    [['fd12:3456::/32'], ['fd12:3456::1'], ['fd12:3457::1', 'fc00::1']],
    [[], [], ['127.0.0.1', '::1', '10.0.0.1']],
  ])('with allowedNetworks %j allows %j and refuses %j', (allowed, allows, refuses) => {
    const policy = new PushTargetPolicy(allowed);
    for (const address of allows) expect(policy.refusalOfAddress(address)).toBeUndefined();
    for (const address of refuses) expect(policy.refusalOfAddress(address)).toContain('allow it with delivery.allowedNetworks');
    expect(policy.refusalOfAddress('8.8.8.8')).toBeUndefined();
  });

  describe('judges hosts without DNS', () => {
    const policy = new PushTargetPolicy();

    it.each([
      'metadata.google.internal',
      'metadata.goog',
      'metadata',
      'instance-data',
      'instance-data.ec2.internal',
      'x.metadata.google.internal',
    ])('refuses the metadata name %s', (name) =>
      expect(policy.refusalOfHost(host(name))).toBe(`${name} names a cloud metadata service; pushes there are always refused`),
    );

    it.each([
      ['2852039166', '169.254.169.254'],
      ['0xa9fea9fe', '169.254.169.254'],
      ['0251.0376.0251.0376', '169.254.169.254'],
      ['169.254.43518', '169.254.169.254'],
      ['0x7f.1', '127.0.0.1'],
      ['012.1', '10.0.0.1'],
    ])('reads the odd spelling %s as %s', (address, ipv4) => {
      // Host refuses these names; the policy does not rely on that.
      const spelled = Object.assign(Object.create(Host.prototype), { protocol: 'HTTP', address, port: 80 }) as Host;
      const verdict = policy.refusalOfHost(spelled);
      if (ipv4 === '127.0.0.1') expect(verdict).toBeUndefined();
      else expect(verdict).toMatch(new RegExp(`^${address} \\(${ipv4.replace(/\./g, '\\.')}\\) is `));
    });

    it('refuses literal addresses as refusalOfAddress does, and leaves other names to DNS', () => {
      expect(policy.refusalOfHost(host('169.254.169.254'))).toContain('cloud metadata service');
      expect(policy.refusalOfHost(host('::ffff:169.254.169.254'))).toContain('cloud metadata service');
      expect(policy.refusalOfHost(host('10.0.0.1'))).toContain('private range');
      expect(policy.refusalOfHost(host('127.0.0.1'))).toBeUndefined();
      expect(policy.refusalOfHost(host('consumer-host'))).toBeUndefined();
      expect(policy.refusalOfHost(host('metadata-service.example'))).toBeUndefined();
    });

    it('throws PushTargetRefusedError naming the host', () => {
      expect(() => policy.assertHostAllowed(host('169.254.169.254'), 'dispatcher host')).toThrow(PushTargetRefusedError);
      expect(() => policy.assertHostAllowed(host('169.254.169.254'), 'dispatcher host')).toThrow(
        'dispatcher host http://169.254.169.254:80 is refused: 169.254.169.254 is a cloud metadata service',
      );
    });
  });
});

describe('parseAllowedNetwork', () => {
  it.each([
    ['loopback', 'loopback'],
    ['private', 'private'],
    ['10.0.0.0/8', { network: '10.0.0.0', prefix: 8 }],
    ['10.1.2.3', { network: '10.1.2.3', prefix: 32 }],
    ['fd00::/8', { network: 'fd00::', prefix: 8 }],
    ['::1', { network: '::1', prefix: 128 }],
  ])('reads %p', (entry, parsed) => {
    expect(parseAllowedNetwork(entry)).toEqual(parsed);
  });

  it.each([
    ['Loopback', 'must be "loopback", "private", an IP address or a CIDR'],
    ['10.0.0.0/33', 'prefix longer than 32 bits'],
    ['fd00::/129', 'prefix longer than 128 bits'],
    ['10.0.0.0/', 'or a CIDR like "10.0.0.0/8", got "10.0.0.0/"'],
    ['10.0.0.0/8/8', 'or a CIDR'],
    ['10.0.0/8', 'or a CIDR'],
    ['intranet.example', 'or a CIDR'],
    ['', 'or a CIDR'],
    [8, 'got 8'],
  ])('refuses %p', (entry, message) => {
    expect(() => parseAllowedNetwork(entry)).toThrow(message);
  });
});
