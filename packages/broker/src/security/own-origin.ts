import type { IncomingMessage } from 'node:http';
import { servesByName } from './host-policy';
import { normaliseOrigin } from './origin-policy';

/**
 * The origin a request was sent to, `http(s)://` + its `Host`, when that host is served by name (see
 * {@link servesByName}); undefined otherwise. A page with this origin was served by the broker itself: the console.
 */
export function ownOrigin(request: Pick<IncomingMessage, 'headers' | 'socket'>, allowedHosts: readonly string[]): string | undefined {
  const host = request.headers.host;
  if (host === undefined || !servesByName(allowedHosts, host)) return undefined;
  const encrypted = (request.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
  return normaliseOrigin(`${encrypted ? 'https' : 'http'}://${host}`);
}
