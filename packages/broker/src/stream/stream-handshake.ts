import { STREAM_PREAMBLE } from '@mmmq/core';
import { Authenticator } from '../security/authenticator';
import { isLoopbackAddress } from '../security/loopback-address';
import { Principal } from '../security/principal';

const HOW_TO_SEND_A_TOKEN = 'send an AUTH request (kind 3) with the token first (producer option token)';

/**
 * The start of a publish stream connection: the preamble, then (on a broker with tokens) an accepted AUTH
 * request, both within a deadline. Knows who the connection speaks for once it is done; a loopback client of a
 * broker without tokens is known from the start.
 */
export class StreamHandshake {
  private preambleSeen = 0;
  private principalOf?: Principal;
  private readonly timer: NodeJS.Timeout;

  /** @param onExpired called once if the handshake is not done within `timeoutMs`, with what is missing */
  constructor(
    private readonly authenticator: Authenticator,
    private readonly peer: string | undefined,
    timeoutMs: number,
    onExpired: (missing: string) => void,
  ) {
    if (!authenticator.required && isLoopbackAddress(peer)) this.principalOf = Principal.LOOPBACK;
    this.timer = setTimeout(() => onExpired(this.preambleDone ? 'an accepted AUTH request' : 'the preamble'), timeoutMs);
  }

  /** Who sent the requests; undefined until authenticated. */
  get principal(): Principal | undefined {
    return this.principalOf;
  }

  get preambleDone(): boolean {
    return this.preambleSeen === STREAM_PREAMBLE.length;
  }

  /**
   * Checks the next bytes against the preamble.
   * @returns the bytes after it, undefined while it is incomplete, or null when the bytes are not the preamble
   */
  readPreamble(chunk: Buffer): Buffer | undefined | null {
    if (this.preambleDone) return chunk;
    const take = Math.min(chunk.length, STREAM_PREAMBLE.length - this.preambleSeen);
    if (!chunk.subarray(0, take).equals(STREAM_PREAMBLE.subarray(this.preambleSeen, this.preambleSeen + take))) return null;
    this.preambleSeen += take;
    if (!this.preambleDone) return undefined;
    this.stopTimerWhenDone();
    return chunk.subarray(take);
  }

  /**
   * Handles an AUTH request's token (undefined when empty); a refused one leaves the connection unauthenticated.
   * @throws AuthenticationRequiredError
   */
  authenticate(token: string | undefined): void {
    this.principalOf = undefined;
    this.principalOf = this.authenticator.authenticate(token, this.peer, HOW_TO_SEND_A_TOKEN);
    this.stopTimerWhenDone();
  }

  /** Why a request that came before a successful AUTH is refused. */
  refusal(): unknown {
    try {
      this.authenticator.authenticate(undefined, this.peer, HOW_TO_SEND_A_TOKEN);
    } catch (error) {
      return error;
    }
    throw new Error('A request was refused for want of authentication on a connection that needs none');
  }

  dispose(): void {
    clearTimeout(this.timer);
  }

  private stopTimerWhenDone(): void {
    if (this.preambleDone && this.principalOf !== undefined) clearTimeout(this.timer);
  }
}
