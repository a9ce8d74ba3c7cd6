import { content } from '../payload';
import { LatencyRecorder } from '../stats';
import { P50, P99, RATE, type Workload } from './workload';

/**
 * Many independent publishers, each sending one message and waiting for its acknowledgement before the next:
 * how most services call a broker. MMMQ over plain HTTP (`POST /mmmq/messages`, one message per request);
 * the peers with their standard clients, unpipelined.
 */
export const httpPublishers: Workload = {
  id: 'http-publishers',
  title: (c) => `Plain HTTP publishers: ${c.httpConnections} connections, one message per request`,
  describe: (c) =>
    `${c.httpMessages.toLocaleString('en')} messages of ${c.size / 1024} KiB sent by ${c.httpConnections} publishers at once, each sending its next message only after the previous one was acknowledged (no client batching, no pipelining). **MMMQ**: plain HTTP, \`POST /mmmq/messages\` with \`{"topic","content"}\` as JSON, one message per request, ${c.httpConnections} keep-alive connections (node:http, one \`http.Agent\` with one socket per publisher), no MMMQ client library. **Peers**, ${c.httpConnections} unpipelined confirmed publishers with their standard clients: Redis, ${c.httpConnections} ioredis connections without auto-pipelining, each XADD awaited; RabbitMQ, ${c.httpConnections} confirm channels on one amqplib connection, each persistent publish awaited until confirmed; JetStream, ${c.httpConnections} loops each awaiting its \`js.publish\` PubAck, on one connection (its client multiplexes). Every connection sends one message before the clock starts. msgs/s = messages / time until the last acknowledgement; latency is request → acknowledgement. No consumer runs.`,
  metrics: [RATE(), P50, P99],
  headline: 'rate',
  applies: (system) => (system.openSequentialPublishers ? true : 'no unpipelined publishers of its own'),
  measuresPublishing: true,
  async run(system, ctx) {
    const c = ctx.config;
    const plan = ctx.plan(1, 1);
    await system.declare(plan);
    const publishers = await system.openSequentialPublishers!(plan.topics[0], c.httpConnections);
    const n = c.httpMessages;
    const latencies = new LatencyRecorder(n);
    try {
      // Connections are set up (HTTP keep-alive opens on the first request) before the measured phase.
      await Promise.all(
        Array.from({ length: c.httpConnections }, (_, p) => publishers.publish(p, content(n + p, performance.now(), c.size))),
      );
      await ctx.startSampling();
      let next = 0;
      let failed = false;
      const start = performance.now();
      await Promise.all(
        Array.from({ length: c.httpConnections }, async (_, p) => {
          try {
            for (let i = next++; i < n && !failed; i = next++) {
              const t = performance.now();
              await publishers.publish(p, content(i, t, c.size));
              latencies.record(performance.now() - t);
            }
          } catch (error) {
            failed = true; // the other publishers stop after their current message
            throw error;
          }
        }),
      );
      const seconds = (performance.now() - start) / 1000;
      await ctx.stopSampling();
      const { p50, p99 } = latencies.summary();
      return { metrics: { rate: n / seconds, p50, p99 }, messages: n };
    } finally {
      await publishers.close();
      await system.drop(plan);
    }
  },
};
