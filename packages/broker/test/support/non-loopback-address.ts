import { networkInterfaces } from 'node:os';

/**
 * An IPv4 address of this machine that is not loopback, to connect from (and to) so that the broker sees a
 * remote peer; undefined on a machine with loopback only.
 */
export function nonLoopbackAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((address) => address !== undefined && address.family === 'IPv4' && !address.internal)?.address;
}
