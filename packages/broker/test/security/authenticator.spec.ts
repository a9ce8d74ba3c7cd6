import { Topic } from '@mmmq/core';
import { resolveAuthOptions } from '../../src/security/auth-options.resolver';
import { Authenticator } from '../../src/security/authenticator';
import { bearerToken } from '../../src/security/bearer-token';
import { Principal } from '../../src/security/principal';
import { AccessDeniedError, AuthenticationRequiredError } from '../../src/security/security.errors';

const HINT = 'send it';
const PUBLISHER = 'publisher-token-0123456789';
const ADMIN = 'admin-token-0123456789';

describe('Authenticator', () => {
  describe('without tokens', () => {
    const authenticator = new Authenticator(resolveAuthOptions());

    it.each(['127.0.0.1', '127.3.2.1', '::1', '::ffff:127.0.0.1'])('serves the loopback client %s with every role', (peer) => {
      expect(authenticator.authenticate(undefined, peer, HINT)).toBe(Principal.LOOPBACK);
    });

    it.each(['192.0.2.2', '::ffff:10.0.0.1', 'fd00::2', undefined])('refuses %s: no tokens, so loopback only', (peer) => {
      expect(() => authenticator.authenticate(ADMIN, peer, HINT)).toThrow(AuthenticationRequiredError);
      expect(() => authenticator.authenticate(ADMIN, peer, HINT)).toThrow(/no tokens configured \(auth\.tokens\).*loopback clients only/);
    });
  });

  describe('with tokens', () => {
    const authenticator = new Authenticator(
      resolveAuthOptions({
        tokens: [
          { token: PUBLISHER, roles: ['publish'], topics: ['order.*'], name: 'orders' },
          { token: ADMIN, roles: ['admin'] },
        ],
      }),
    );

    it('requires a known token, from loopback clients too', () => {
      expect(() => authenticator.authenticate(undefined, '127.0.0.1', HINT)).toThrow('This broker requires a token: send it');
      const unknown = (() => {
        try {
          authenticator.authenticate('unknown-token-0123456789', '127.0.0.1', HINT);
        } catch (error) {
          return error as AuthenticationRequiredError;
        }
      })();
      expect(unknown).toBeInstanceOf(AuthenticationRequiredError);
      expect(unknown?.challenge).toBe('Bearer realm="mmmq", error="invalid_token"');
    });

    it('tells the principal of each token, whatever the peer', () => {
      const publisher = authenticator.authenticate(PUBLISHER, '192.0.2.2', HINT);
      expect(publisher.name).toBe('orders');
      expect([publisher.has('publish'), publisher.has('consume'), publisher.has('admin')]).toEqual([true, false, false]);
      const admin = authenticator.authenticate(ADMIN, '127.0.0.1', HINT);
      expect([admin.has('publish'), admin.has('consume'), admin.has('admin')]).toEqual([true, true, true]);
    });

    it('limits publishing to the token topic patterns, naming the topic refused', () => {
      const publisher = authenticator.authenticate(PUBLISHER, '127.0.0.1', HINT);
      expect(() => publisher.assertMayPublish([Topic.of('order.created')])).not.toThrow();
      expect(() => publisher.assertMayPublish([Topic.of('order.created'), Topic.of('audit.log')])).toThrow(AccessDeniedError);
      expect(() => publisher.assertMayPublish([Topic.of('audit.log')])).toThrow(
        /orders may not publish to audit\.log; it may publish to order\.\*/,
      );
      expect(() => publisher.assertHas('consume')).toThrow(/The token orders lacks the consume role \(it has publish\)/);
    });
  });
});

describe('bearerToken', () => {
  it('reads "Bearer <token>", the scheme in any case', () => {
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken(`Bearer ${ADMIN}`)).toBe(ADMIN);
    expect(bearerToken(`bearer  ${ADMIN} `)).toBe(ADMIN);
  });

  it.each(['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer a b', ADMIN])('refuses %j', (header) => {
    expect(() => bearerToken(header)).toThrow(/Authorization must be "Bearer <token>"/);
  });
});
