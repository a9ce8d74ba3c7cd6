// Namespace imports: this module's declarations are published, and apps without esModuleInterop must read them.
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';

/**
 * Connections the broker holds open at once to one push host (address and port), when `delivery.maxSocketsPerHost`
 * is not given. Without a cap, a `**` dispatcher over 10,000 topics with a backlog opens a connection per
 * subscription pushing: 10,000 descriptors toward one consumer, out of the broker's budget. Pushes beyond the cap
 * wait for a free connection (keep-alive reuses it); 64 keeps a host busy — its handlers, not the sockets, bound it.
 */
export const DEFAULT_PUSH_MAX_SOCKETS_PER_HOST = 64;
/**
 * Connections to all push hosts together (per protocol: HTTP and HTTPS have an agent each), when
 * `delivery.maxSockets` is not given: the smallest descriptor reserve for sockets is 256 (docs/operations.md).
 */
export const DEFAULT_PUSH_MAX_SOCKETS = 256;

/** How many connections pushes may hold (docs/delivery.md#connections). */
export interface PushSocketLimits {
  maxSocketsPerHost: number;
  maxSockets: number;
}

export const DEFAULT_PUSH_SOCKET_LIMITS: PushSocketLimits = {
  maxSocketsPerHost: DEFAULT_PUSH_MAX_SOCKETS_PER_HOST,
  maxSockets: DEFAULT_PUSH_MAX_SOCKETS,
};

/** The keep-alive agents pushes go through, one per protocol, capped by `limits`. */
export function pushAgents(
  limits: PushSocketLimits,
  idleTimeoutMs: number,
  lookup: LookupFunction,
): { HTTP: http.Agent; HTTPS: https.Agent } {
  const options = {
    keepAlive: true,
    timeout: idleTimeoutMs,
    lookup,
    maxSockets: limits.maxSocketsPerHost,
    maxTotalSockets: limits.maxSockets,
    // Idle connections kept for reuse: never more than the host may have open.
    maxFreeSockets: limits.maxSocketsPerHost,
  };
  return { HTTP: new http.Agent(options), HTTPS: new https.Agent(options) };
}

/** Sockets of the agent, in use and idle. */
function socketCount(agent: http.Agent): number {
  let count = 0;
  for (const sockets of [agent.sockets, agent.freeSockets]) for (const list of Object.values(sockets)) count += list?.length ?? 0;
  return count;
}

function queuedCount(agent: http.Agent): number {
  let count = 0;
  for (const queue of Object.values(agent.requests)) count += queue?.length ?? 0;
  return count;
}

/**
 * Makes a request through `agent` (`request` creates it) and, when the agent queued it because every socket of the
 * total cap is taken while some of them sit idle (kept alive for other hosts), closes one idle socket: the agent
 * then opens one for a waiting request. Node's agent does not, so a push to a new host would wait for an idle
 * socket's timeout (`PUSH_IDLE_SOCKET_TIMEOUT_MS`).
 */
export function requestMakingRoom<T>(agent: http.Agent, request: () => T): T {
  const queuedBefore = queuedCount(agent);
  const made = request();
  if (queuedCount(agent) > queuedBefore && socketCount(agent) >= agent.maxTotalSockets) {
    for (const idle of Object.values(agent.freeSockets)) {
      if (idle && idle.length > 0) {
        idle[0].destroy();
        break;
      }
    }
  }
  return made;
}
