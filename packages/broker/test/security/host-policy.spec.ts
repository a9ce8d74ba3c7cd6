import { HostPolicy } from '../../src/security/host-policy';
import { HostNotAllowedError } from '../../src/security/security.errors';

describe('HostPolicy', () => {
  const defaults = new HostPolicy([]);

  it.each([
    undefined,
    '127.0.0.1',
    '127.0.0.1:8080',
    '10.1.2.3:80',
    '[::1]:8080',
    '[::1]',
    '[fd00::2]:1',
    'localhost',
    'LOCALHOST:8080',
    'localhost.:8080',
    'console.localhost:3000',
  ])('serves %s: an IP literal, localhost or *.localhost, on any port', (host) => {
    expect(() => defaults.check(host)).not.toThrow();
  });

  it.each([
    'evil.example',
    'evil.example:8080',
    'localhost.evil.example',
    'evillocalhost',
    '127.0.0.1.nip.io',
    '0x7f.1',
    '::1',
    '[::1',
    '[localhost]:1',
    '127.0.0.1:80:80',
    '127.0.0.1:port',
    '',
  ])('refuses %j with a 421 naming it and http.allowedHosts', (host) => {
    expect(() => defaults.check(host)).toThrow(HostNotAllowedError);
    expect(() => defaults.check(host)).toThrow(/http\.allowedHosts/);
  });

  it('serves listed names on any port, case-insensitively, and every name with *', () => {
    const listed = new HostPolicy(['broker.internal']);
    expect(() => listed.check('Broker.Internal:8080')).not.toThrow();
    expect(() => listed.check('other.internal')).toThrow(/"other\.internal"/);
    expect(() => new HostPolicy(['*']).check('anything.example')).not.toThrow();
  });
});
