// A relay in a process of its own, for the test that SIGKILLs it mid-batch. Run with ts-node from source.
import '../../../microservices/test/support/source-paths';
import { OutboxRelay } from '../../src/relay/outbox-relay';

async function main(): Promise<void> {
  const relay = new OutboxRelay({
    connection: String(process.env.DATABASE_URL),
    producer: { broker: String(process.env.BROKER_URL), maxRetryCount: 0, timeoutMs: 600_000 },
    // Longer than the publish may take, as the relay requires; the batch below is leased for LEASE_MS only.
    leaseMs: 1_200_000,
    schema: String(process.env.SCHEMA),
    relayId: 'doomed',
    retention: false,
  });
  const lease = await relay.leaseBatch(100, Number(process.env.LEASE_MS));
  process.stdout.write(`LEASED ${lease.rows.length}\n`);
  // Hangs: the broker's answers are dropped, so the parent kills this process while it waits.
  await relay.publishLease(lease);
  process.stdout.write('MARKED\n');
}

void main();
