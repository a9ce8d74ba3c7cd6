import fc from 'fast-check';
import { InvalidHostError } from '../src/errors/invalid-host-error';
import { HOST_ADDRESS_MAX_LENGTH, HOST_LABEL_MAX_LENGTH, HOST_PORT_MAX, Host, HostProtocol } from '../src/host';

describe('Host', () => {
  describe('parses URL strings', () => {
    it.each([
      ['http://consumer-host:8080', 'HTTP', 'consumer-host', 8080, 'http://consumer-host:8080'],
      ['https://consumer-host:8443', 'HTTPS', 'consumer-host', 8443, 'https://consumer-host:8443'],
      ['HTTP://Consumer-Host:80', 'HTTP', 'consumer-host', 80, 'http://consumer-host:80'],
      ['hTtPs://a.b.example:1', 'HTTPS', 'a.b.example', 1, 'https://a.b.example:1'],
      ['http://localhost:65535', 'HTTP', 'localhost', 65535, 'http://localhost:65535'],
      ['http://127.0.0.1:3000', 'HTTP', '127.0.0.1', 3000, 'http://127.0.0.1:3000'],
      ['http://[::1]:8080', 'HTTP', '::1', 8080, 'http://[::1]:8080'],
      ['http://[FE80::A:1]:8080', 'HTTP', 'fe80::a:1', 8080, 'http://[fe80::a:1]:8080'],
      ['http://[::ffff:10.0.0.1]:80', 'HTTP', '::ffff:10.0.0.1', 80, 'http://[::ffff:10.0.0.1]:80'],
      ['http://1a.example:80', 'HTTP', '1a.example', 80, 'http://1a.example:80'],
      ['http://x-1.y:80', 'HTTP', 'x-1.y', 80, 'http://x-1.y:80'],
    ])('%p', (url, protocol, address, port, normalised) => {
      const host = Host.parse(url);

      expect(host.protocol).toBe(protocol);
      expect(host.address).toBe(address);
      expect(host.port).toBe(port);
      expect(host.toUrl()).toBe(normalised);
      expect(String(host)).toBe(normalised);
    });
  });

  describe('rejects URL strings', () => {
    it.each([
      ['no scheme', 'h:8080', 'must look like'],
      ['no scheme nor port', 'consumer-host', 'must look like'],
      ['empty', '', 'must look like'],
      ['ftp', 'ftp://h:21', 'unsupported scheme "ftp"'],
      ['ws', 'ws://h:80', 'unsupported scheme "ws"'],
      ['https with a typo', 'httpx://h:80', 'unsupported scheme'],
      ['long s posing as s', 'http\u017f://h:80', 'must look like'],
      ['trailing slash', 'http://h:8080/', 'must not have a path'],
      ['path', 'http://h:8080/mmmq/messages', 'must not have a path'],
      ['query', 'http://h:8080?x=1', 'must not have a path, query or fragment'],
      ['fragment', 'http://h:8080#x', 'must not have a path, query or fragment'],
      ['user info', 'http://user:pass@h:8080', 'must not contain user info'],
      ['missing port', 'http://h', 'explicit port'],
      ['missing port after IPv6', 'http://[::1]', 'explicit port'],
      ['empty port', 'http://h:', 'invalid port ""'],
      ['port with sign', 'http://h:+80', 'invalid port "+80"'],
      ['port too long', 'http://h:123456', 'invalid port "123456"'],
      ['port 0', 'http://h:0', 'from 1 to 65535, got 0'],
      ['port above range', 'http://h:65536', 'from 1 to 65535, got 65536'],
      ['underscore', 'http://h_x:8080', 'Host address "h_x" is not a host name'],
      ['empty address', 'http://:8080', 'Host address "" is not'],
      ['space', 'http://h x:8080', 'is not a host name'],
      ['leading hyphen label', 'http://-h:80', 'is not a host name'],
      ['trailing hyphen label', 'http://h-:80', 'is not a host name'],
      ['empty label', 'http://a..b:80', 'is not a host name'],
      ['trailing dot', 'http://h.:80', 'is not a host name'],
      ['bad IPv4', 'http://1.2.3.256:80', 'is not a host name'],
      ['IPv4 with leading zero', 'http://010.0.0.1:80', 'is not a host name'],
      ['numeric name', 'http://1234:80', 'is not a host name'],
      ['unbracketed IPv6', 'http://::1:80', 'is not a host name'],
      ['bad IPv6', 'http://[::g]:80', 'not a valid bracketed IPv6 address'],
      ['IPv6 zone', 'http://[fe80::1%25eth0]:80', 'not a valid bracketed IPv6 address'],
      ['unicode', 'http://café:80', 'is not a host name'],
      ['newline', 'http://h\n:80', 'is not a host name'],
      ['surrounding space', ' http://h:80', 'must look like'],
      ['label too long', `http://${'a'.repeat(HOST_LABEL_MAX_LENGTH + 1)}:80`, 'is not a host name'],
    ])('%s: %p', (_, url, message) => {
      expect(() => Host.parse(url)).toThrow(InvalidHostError);
      expect(() => Host.parse(url)).toThrow(message);
    });
  });

  describe('parses definition objects', () => {
    it.each([
      [{ protocol: 'HTTP', address: 'consumer-host', port: 8080 }, 'http://consumer-host:8080'],
      [{ protocol: 'https', address: 'consumer-host', port: 8443 }, 'https://consumer-host:8443'],
      [{ protocol: 'Http', address: 'Consumer-Host', port: 1 }, 'http://consumer-host:1'],
      [{ protocol: 'HTTP', address: '::1', port: 80 }, 'http://[::1]:80'],
      [{ protocol: 'HTTP', address: '[::1]', port: 80 }, 'http://[::1]:80'],
      [{ protocol: 'HTTP', address: '10.0.0.1', port: 80 }, 'http://10.0.0.1:80'],
      [{ protocol: 'HTTP', address: 'h', port: 80, comment: 'ignored' }, 'http://h:80'],
    ])('%p', (definition, url) => {
      expect(Host.parse(definition).toUrl()).toBe(url);
    });

    it('normalises the protocol to upper case', () => {
      expect(Host.parse({ protocol: 'https', address: 'h', port: 1 }).protocol).toBe(HostProtocol.HTTPS);
    });
  });

  describe('rejects definition objects', () => {
    it.each([
      ['unknown protocol', { protocol: 'FTP', address: 'h', port: 21 }, 'protocol must be "HTTP" or "HTTPS", got "FTP"'],
      ['missing protocol', { address: 'h', port: 80 }, 'got undefined'],
      ['non-string protocol', { protocol: 1, address: 'h', port: 80 }, 'got 1'],
      ['protocol with spaces', { protocol: ' HTTP', address: 'h', port: 80 }, 'got " HTTP"'],
      ['missing address', { protocol: 'HTTP', port: 80 }, 'address must be a string'],
      ['bad address', { protocol: 'HTTP', address: 'h_x', port: 80 }, 'Host address "h_x" is not a host name'],
      ['URL as address', { protocol: 'HTTP', address: 'http://h', port: 80 }, 'is not a host name'],
      ['IPv6 zone', { protocol: 'HTTP', address: 'fe80::1%eth0', port: 80 }, 'is not a host name'],
      ['string port', { protocol: 'HTTP', address: 'h', port: '80' }, 'port must be a number, got "80"'],
      ['missing port', { protocol: 'HTTP', address: 'h' }, 'port must be a number'],
      ['fractional port', { protocol: 'HTTP', address: 'h', port: 80.5 }, 'got 80.5'],
      ['port 0', { protocol: 'HTTP', address: 'h', port: 0 }, 'got 0'],
      ['negative port', { protocol: 'HTTP', address: 'h', port: -1 }, 'got -1'],
      ['NaN port', { protocol: 'HTTP', address: 'h', port: NaN }, 'got NaN'],
      ['port above range', { protocol: 'HTTP', address: 'h', port: HOST_PORT_MAX + 1 }, 'got 65536'],
    ])('%s', (_, definition, message) => {
      expect(() => Host.parse(definition)).toThrow(InvalidHostError);
      expect(() => Host.parse(definition)).toThrow(message);
    });

    it.each([undefined, null, 8080, true, ['http://h:80']])('rejects %p', (input) => {
      expect(() => Host.parse(input)).toThrow(InvalidHostError);
      expect(() => Host.parse(input)).toThrow('must be a {protocol, address, port} object or a URL');
    });
  });

  // getaddrinfo passes names ending in a number to inet_aton, which reads all of these as 169.254.169.254: a
  // spelling the push-target checks would not recognise as an address must not get through as a host name.
  it.each([
    ['decimal', '2852039166'],
    ['hex', '0xa9fea9fe'],
    ['upper-case hex', '0XA9FEA9FE'],
    ['hex last part', '169.254.169.0xfe'],
    ['hex parts', '0xa9.0xfe.0xa9.0xfe'],
    ['octal parts', '0251.0376.0251.0376'],
    ['three parts', '169.254.43518'],
    ['two parts', '169.16689662'],
    ['bare 0x', '0x'],
  ])('rejects the odd IPv4 spelling %s (%s) that resolvers would turn into an address', (_, address) => {
    expect(() => Host.parse(`http://${address}:80`)).toThrow('is not a host name');
    expect(() => Host.parse({ protocol: 'HTTP', address, port: 80 })).toThrow(InvalidHostError);
  });

  it('still accepts names whose last label merely starts with digits or 0x', () => {
    expect(Host.parse('http://consumer.0xdead-beef:80').address).toBe('consumer.0xdead-beef');
    expect(Host.parse('http://a.1b:80').address).toBe('a.1b');
  });

  it('accepts a host name of the maximum length and rejects a longer one', () => {
    const label = 'a'.repeat(HOST_LABEL_MAX_LENGTH);
    const last = 'a'.repeat(HOST_ADDRESS_MAX_LENGTH - 3 * (HOST_LABEL_MAX_LENGTH + 1));
    const longest = [label, label, label, last].join('.');

    expect(longest).toHaveLength(HOST_ADDRESS_MAX_LENGTH);
    expect(Host.parse(`http://${longest}:80`).address).toBe(longest);
    expect(() => Host.parse(`http://${longest}a:80`)).toThrow(InvalidHostError);
  });

  it('serialises to the definition object, which parses back to an equal host', () => {
    const host = Host.parse('https://[::1]:8443');

    expect(host.toJSON()).toEqual({ protocol: 'HTTPS', address: '::1', port: 8443 });
    expect(JSON.parse(JSON.stringify(host))).toEqual({ protocol: 'HTTPS', address: '::1', port: 8443 });
    expect(Host.parse(host.toJSON()).equals(host)).toBe(true);
    expect(Host.parse(host).equals(host)).toBe(true);
  });

  it('equals hosts with the same normalised protocol, address and port', () => {
    const host = Host.parse('http://consumer:80');

    expect(host.equals(Host.parse({ protocol: 'http', address: 'CONSUMER', port: 80 }))).toBe(true);
    expect(host.equals(Host.parse('https://consumer:80'))).toBe(false);
    expect(host.equals(Host.parse('http://consumer2:80'))).toBe(false);
    expect(host.equals(Host.parse('http://consumer:81'))).toBe(false);
  });

  it('round-trips every valid URL through toUrl', () => {
    const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/);
    const hostname = fc
      .array(label, { minLength: 1, maxLength: 4 })
      // A last label that is a number, decimal or hex (`0x0`), makes a URL parser read the host as an IPv4 address.
      .filter((labels) => !/^(\d+|0x[0-9a-f]*)$/.test(labels[labels.length - 1]))
      .map((labels) => labels.join('.'));
    fc.assert(
      fc.property(
        fc.constantFrom('http', 'https'),
        fc.oneof(hostname, fc.ipV4()),
        fc.integer({ min: 1, max: HOST_PORT_MAX }),
        (scheme, address, port) => {
          const url = `${scheme}://${address}:${port}`;
          const host = Host.parse(url);
          expect(host.toUrl()).toBe(url);
          expect(Host.parse(host.toUrl()).equals(host)).toBe(true);
          expect(Host.parse(host.toJSON()).equals(host)).toBe(true);
        },
      ),
    );
  });

  it('round-trips every IPv6 address through toUrl and toJSON', () => {
    fc.assert(
      fc.property(fc.ipV6(), (ip) => {
        const host = Host.parse(`http://[${ip}]:80`);
        expect(Host.parse(host.toUrl()).equals(host)).toBe(true);
        expect(Host.parse(host.toJSON()).equals(host)).toBe(true);
      }),
    );
  });
});
