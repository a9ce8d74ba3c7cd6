import { httpRequest } from './mmmq-http';

/** A dispatcher definition as `POST /mmmq/dispatchers` takes it (`host` optional, several members). */
export interface DispatcherBody {
  consumerId: string;
  pattern: string;
  /** Absent: a pull-only consumer id. */
  host?: string;
  batchSize?: number;
  maxInFlight?: number;
  /** False: independent, unnumbered pushes (docs/delivery.md § Unordered pushes). */
  ordered?: boolean;
}

/**
 * Registers a dispatcher, or adds a member host to an existing one: the current contract (docs/delivery.md §
 * Runtime API) answers a POST with an existing consumerId and the same settings with 200 and the host added
 * (201 when it created the id).
 */
export async function postDispatcher(port: number, body: DispatcherBody): Promise<void> {
  const answer = await httpRequest(port, 'POST', '/mmmq/dispatchers', { body: JSON.stringify(body) });
  if (answer.status === 201 || answer.status === 200) return;
  const hint =
    answer.status === 409
      ? ' (an older broker, without member groups, refuses a second host for one consumerId)'
      : answer.status === 400 && body.host === undefined
        ? ' (an older broker, without member groups, has no pull-only dispatchers)'
        : '';
  throw new Error(`POST /mmmq/dispatchers for ${body.consumerId} answered ${answer.status}: ${answer.text.slice(0, 200)}${hint}`);
}

interface HostJson {
  protocol: string;
  address: string;
  port: number;
}

/** Checks that the broker holds `hosts` as the members of `consumerId`, so that a run never measures fewer. */
export async function expectHosts(port: number, consumerId: string, hosts: string[]): Promise<void> {
  const path = `/mmmq/dispatchers/${encodeURIComponent(consumerId)}`;
  const answer = await httpRequest(port, 'GET', path);
  if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  // One host is shown as `host`, several as `hosts`: `{protocol, address, port}` objects.
  const { host, hosts: several } = JSON.parse(answer.text) as { host?: HostJson; hosts?: HostJson[] };
  const shown = several ?? (host ? [host] : []);
  const urls = shown.map((h) => `${h.protocol.toLowerCase()}://${h.address}:${h.port}`);
  const missing = hosts.filter((h) => !urls.includes(h));
  if (missing.length) throw new Error(`GET ${path} shows hosts ${JSON.stringify(shown)}, without ${missing.join(', ')}`);
}
