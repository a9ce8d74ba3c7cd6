import { createServer } from 'node:net';

/**
 * `MMMQ_FAULT_PORTS=first-last`: every port the suite listens on (brokers' HTTP and stream ports, the recording
 * consumers) is taken from this range, for machines where several runs share the loopback interface. Unset, the
 * kernel picks free ports (port 0).
 */
export const FAULT_PORTS_VARIABLE = 'MMMQ_FAULT_PORTS';
const KERNEL_CHOOSES = 0;
let next: number | undefined;

export function portRange(env: NodeJS.ProcessEnv = process.env): { first: number; last: number } | undefined {
  const text = env[FAULT_PORTS_VARIABLE];
  if (text === undefined || text === '') return undefined;
  const match = /^(\d+)-(\d+)$/.exec(text);
  const first = Number(match?.[1]);
  const last = Number(match?.[2]);
  if (!match || first < 1 || last > 65535 || first > last) {
    throw new Error(`${FAULT_PORTS_VARIABLE} must look like 47200-47399, got ${JSON.stringify(text)}`);
  }
  return { first, last };
}

/**
 * A port to listen on: 0 without a range; with one, the next port of the range (round robin) that is free right
 * now on 127.0.0.1. Throws when none of the range is free.
 */
export async function nextPort(): Promise<number> {
  const range = portRange();
  if (!range) return KERNEL_CHOOSES;
  const size = range.last - range.first + 1;
  for (let tried = 0; tried < size; tried++) {
    const port = next !== undefined && next >= range.first && next <= range.last ? next : range.first;
    next = port === range.last ? range.first : port + 1;
    if (await isFree(port)) return port;
  }
  throw new Error(`No free port in ${FAULT_PORTS_VARIABLE}=${range.first}-${range.last}`);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
