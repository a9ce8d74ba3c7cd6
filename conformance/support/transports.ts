import { inMemoryTransport } from './in-memory.transport';
import { mmmqTransport } from './mmmq.transport';
import { rabbitMqTransport } from './rabbitmq.transport';
import type { TransportUnderTest } from './transport-under-test';

/** Every transport the suite runs on; each test file runs once per row (`describe.each(TRANSPORTS)`). */
export const ALL_TRANSPORTS: readonly TransportUnderTest[] = [mmmqTransport, inMemoryTransport, rabbitMqTransport];

/**
 * `MMMQ_CONFORMANCE_TRANSPORTS=mmmq,rabbitmq` runs only those rows (while working on one transport); unset: all of
 * them, as CI runs it. A name that is not a row is an error, so a typo cannot turn the suite off.
 */
export const TRANSPORTS: readonly TransportUnderTest[] = selected(process.env.MMMQ_CONFORMANCE_TRANSPORTS);

function selected(names: string | undefined): readonly TransportUnderTest[] {
  if (names === undefined || names.trim() === '') return ALL_TRANSPORTS;
  return names.split(',').map((name) => {
    const row = ALL_TRANSPORTS.find((transport) => transport.name === name.trim());
    if (!row) throw new Error(`MMMQ_CONFORMANCE_TRANSPORTS: no transport ${name.trim()} (${ALL_TRANSPORTS.map((t) => t.name).join(', ')})`);
    return row;
  });
}
