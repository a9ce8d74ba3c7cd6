/**
 * What the tracing call sites cost per message when no tracer provider is registered (`@opentelemetry/api`
 * installed): `traceSend` and `traceProcess` around a resolved promise, against the same promise without them, in
 * nanoseconds per call. Compare with the CPU per message of the bench's `embedded` workload (tens of µs).
 *
 *   npx tsc -b tsconfig.build.json
 *   npx ts-node --transpile-only packages/consumer/test/tracing/measure-tracing-off.ts [calls]
 */
import { performance } from 'node:perf_hooks';
import { traceProcess } from '../../src/handling/process-tracing';
import type { ListenerDefinition } from '../../src/listener/listener-definition';
import { traceSend } from '../../../producer/src/send-tracing';

const listener = { consumerId: 'billing.orders', ackMode: 'auto' } as ListenerDefinition;
const delivery = {
  id: 'm-1',
  topic: 'order.created',
  content: {},
  headers: {},
  offset: 0,
  deliveryCount: 1,
  redelivered: false,
  publishedAt: null,
};
const message = { id: 'm-1', topic: 'order.created', content: '{}', headers: undefined, deliveryMode: undefined };
const outcome = { reply: { acknowledgement: 'ACK' as const } };

async function nsPerCall(calls: number, call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < calls; i++) await call();
  return ((performance.now() - started) * 1e6) / calls;
}

async function main(): Promise<void> {
  const calls = Number(process.argv[2] ?? 2_000_000);
  const bare = () => Promise.resolve(outcome);
  for (let round = 1; round <= 3; round++) {
    const plain = await nsPerCall(calls, bare);
    const send = await nsPerCall(calls, () => traceSend([message], bare));
    const processed = await nsPerCall(calls, () => traceProcess(listener, delivery, bare));
    console.log(
      `round ${round}: bare ${plain.toFixed(0)} ns, traceSend ${send.toFixed(0)} ns (+${(send - plain).toFixed(0)}), ` +
        `traceProcess ${processed.toFixed(0)} ns (+${(processed - plain).toFixed(0)})`,
    );
  }
}

void main();
