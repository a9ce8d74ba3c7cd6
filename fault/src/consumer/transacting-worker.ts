/**
 * The consumer side of the transacted-consumption scenario, run as its own process so the harness can SIGKILL it
 * mid-transaction: `MMMQ_TX_IN_FLIGHT` loops, each fetching one input of `MMMQ_TX_CONSUMER` from `MMMQ_TX_BROKER`
 * and committing it with its two outputs (`tx.out`, `tx.audit`) in one `POST /mmmq/transactions`. It keeps no state:
 * what a crash interrupts comes again from the broker. Prints `committed {offset}` per commit (for the harness's
 * pacing) and never retries a transaction whose outcome it did not learn — the point of transactions.
 * Started with `node -r ts-node/register/transpile-only` (see TransactingWorker).
 */
import { Agent } from 'node:http';
import { httpRequest } from '../load/http-post';

/** Lease of a fetched input: a killed worker's inputs come back this soon. */
export const WORKER_LEASE_MS = 1000;
export const OUTPUT_TOPIC = 'tx.out';
export const AUDIT_TOPIC = 'tx.audit';
const REQUEST_TIMEOUT_MS = 10_000;
const RETRY_PAUSE_MS = 50;

interface Fetched {
  offset: number;
  lease: string;
  deliveryCount: number;
}

const broker = process.env.MMMQ_TX_BROKER ?? '';
const consumerId = process.env.MMMQ_TX_CONSUMER ?? '';
const agent = new Agent({ keepAlive: true });

async function post(path: string, body: unknown): Promise<{ status: number; body: string }> {
  return httpRequest(`${broker}${path}`, { body: JSON.stringify(body), agent, timeoutMs: REQUEST_TIMEOUT_MS });
}

async function loop(member: string): Promise<never> {
  for (;;) {
    try {
      const fetched = await post(`/mmmq/consumers/${consumerId}/fetch`, { max: 1, waitMs: 500, member, ackTimeoutMs: WORKER_LEASE_MS });
      if (fetched.status !== 200) throw new Error(`fetch answered ${fetched.status}`);
      for (const { offset, lease, deliveryCount } of (JSON.parse(fetched.body) as { messages: Fetched[] }).messages) {
        const answer = await post('/mmmq/transactions', {
          consumerId,
          settle: [lease],
          messages: [
            { topic: OUTPUT_TOPIC, id: `in${offset}.${deliveryCount}`, content: { offset } },
            { topic: AUDIT_TOPIC, id: `in${offset}.${deliveryCount}`, content: { offset, deliveryCount } },
          ],
        });
        if (answer.status === 200) process.stdout.write(`committed ${offset}\n`);
      }
    } catch {
      await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
    }
  }
}

if (require.main === module) {
  const inFlight = Number(process.env.MMMQ_TX_IN_FLIGHT ?? '4');
  for (let i = 0; i < inFlight; i++) void loop(`worker-${process.pid}-${i}`);
}
