import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

const UNSPECIFIED = new BlockList();
UNSPECIFIED.addAddress('0.0.0.0', 'ipv4');
UNSPECIFIED.addAddress('::', 'ipv6');

/** Peer addresses whose answer is remembered; past that the memory starts over (bounded, never a leak). */
const REMEMBERED_ADDRESSES = 1024;
const recentAnswers = new Map<string, boolean>();

/** The name that resolves to loopback on every system. */
const LOCALHOST = 'localhost';

/**
 * 127.0.0.0/8 or ::1 (also IPv4-mapped, as Node reports IPv4 peers of a dual-stack socket); false for names.
 * Deliberately narrower than the push-target policy's `classifyAddress`, which reads NAT64 and 6to4 forms as the
 * IPv4 address they carry: that is right for where a push may end up, wrong for trusting a peer as local.
 */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  // Asked for every request without a token; the few peer addresses a broker sees are remembered.
  let loopback = recentAnswers.get(address);
  if (loopback === undefined) {
    const family = isIP(address);
    loopback = family !== 0 && LOOPBACK.check(address, family === 4 ? 'ipv4' : 'ipv6');
    if (recentAnswers.size >= REMEMBERED_ADDRESSES) recentAnswers.clear();
    recentAnswers.set(address, loopback);
  }
  return loopback;
}

/** Whether binding `host` keeps a server on this machine: a loopback address or `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  return bare.toLowerCase() === LOCALHOST || isLoopbackAddress(bare);
}

/** `0.0.0.0` or `::`: binding it listens on every interface. */
export function isUnspecifiedAddress(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(bare);
  return family !== 0 && UNSPECIFIED.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}
