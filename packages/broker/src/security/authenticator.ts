import { Inject, Injectable } from '@nestjs/common';
import { MMMQ_AUTH_OPTIONS, ResolvedAuthOptions } from './auth-options.resolver';
import type { BrokerRole } from './broker-role';
import { isLoopbackAddress } from './loopback-address';
import { Principal } from './principal';
import { AuthenticationRequiredError, INVALID_TOKEN_CHALLENGE } from './security.errors';
import { findByToken } from './token-digest';

interface KnownToken {
  readonly digest: Buffer;
  readonly principal: Principal;
}

/**
 * Tells who a client is from the token it presented, for HTTP and the publish stream alike. With tokens
 * configured every client needs one; without any, authentication is off and only loopback clients are served,
 * so a broker that is reachable from other machines by accident still refuses them.
 */
@Injectable()
export class Authenticator {
  private readonly known: readonly KnownToken[];

  constructor(@Inject(MMMQ_AUTH_OPTIONS) options: ResolvedAuthOptions) {
    this.known = options.tokens.map((token) => ({
      digest: token.digest,
      principal: new Principal(token.name, token.roles, token.topics, token.consumers),
    }));
  }

  /** Whether clients must present a token. */
  get required(): boolean {
    return this.known.length > 0;
  }

  /** Whether some configured token has `role` (the console is served only while one has `admin`). */
  anyTokenHas(role: BrokerRole): boolean {
    return this.known.some((known) => known.principal.has(role));
  }

  /**
   * @param token what the client presented, if anything
   * @param peer the client's IP address: the TCP peer, never a forwarded header
   * @param howToSend how a client of this transport presents a token, for the error
   * @throws AuthenticationRequiredError for a missing or unknown token, or a remote client while authentication is off
   */
  authenticate(token: string | undefined, peer: string | undefined, howToSend: string): Principal {
    if (!this.required) {
      if (isLoopbackAddress(peer)) return Principal.LOOPBACK;
      throw new AuthenticationRequiredError(
        `This broker has no tokens configured (auth.tokens), so it serves loopback clients only, and ${peer} is not one`,
      );
    }
    if (token === undefined) throw new AuthenticationRequiredError(`This broker requires a token: ${howToSend}`);
    const known = findByToken(this.known, token);
    if (known === undefined) {
      throw new AuthenticationRequiredError('The token is not valid for this broker', INVALID_TOKEN_CHALLENGE);
    }
    return known.principal;
  }
}
