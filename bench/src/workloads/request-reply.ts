import { content } from '../payload';
import { pump } from '../pump';
import { LatencyRecorder } from '../stats';
import { MAX, P50, P99, RATE, type Workload } from './workload';

/** Round trips before the measured ones: connections, the reply inbox or queue, the replier's first pushes. */
const WARM_UP = 200;

/**
 * Request-reply between two processes through the broker: the bench's `ClientProxy.send()` against a replier
 * microservice's `@MessagePattern` handler, with a fixed number of requests in flight.
 */
export const requestReply: Workload = {
  id: 'request-reply',
  title: (c) => `Request-reply, ${c.requestConcurrency} requests in flight`,
  describe: (c) =>
    `${c.requests.toLocaleString('en')} requests of ${c.size / 1024} KiB, ${c.requestConcurrency} in flight at once (a new one as soon as one is answered), after ${WARM_UP} not measured. The requester is a Nest \`ClientProxy\` in the bench process, \`lastValueFrom(client.send(pattern, request))\`; the replier is a Nest microservice in a process of its own with one \`@MessagePattern\` handler that returns the request (the same class on both transports), allowed ${c.requestConcurrency} requests at once. MMMQ: \`MmmqClient\` (its producer over HTTP; replies streamed from the broker's relay) → the standalone broker → \`MmmqServer\` (push, listener \`concurrency\` ${c.requestConcurrency}); each request is a durable message (fsync'd before it is delivered), each reply carried in the push's answer and relayed in memory. RabbitMQ: Nest's own \`Transport.RMQ\` (\`ClientRMQ\`, replies on direct reply-to) with Nest's defaults on the classic row (a durable classic queue, requests not persistent, \`noAck\`: a request is acknowledged on delivery), and on the quorum row a quorum queue and persistent requests (still \`noAck\`, since with \`noAck: false\` Nest's server leaves acknowledging to the handler). Latency is \`send()\` → reply; *server CPU* samples the broker and the replier.`,
  metrics: [RATE('round trips/s'), P50, P99, MAX, { key: 'wrong', label: 'wrong replies', unit: '', better: 'lower', ratio: false }],
  headline: 'rate',
  applies: (system) =>
    system.requestReply ? true : "no request-reply in this driver (the bench drives request-reply through Nest's ClientProxy only)",
  async run(system, ctx) {
    const { requests, requestConcurrency, size } = ctx.config;
    const rig = await system.requestReply!(ctx.plan(1, 1), requestConcurrency);
    try {
      await pump(WARM_UP, requestConcurrency, async (i) => void (await rig.request(content(i, performance.now(), size))));
      const latencies = new LatencyRecorder(requests);
      let wrong = 0;
      await ctx.startSampling(() => rig.serverPids());
      const started = performance.now();
      await pump(requests, requestConcurrency, async (i) => {
        const sent = performance.now();
        const reply = await rig.request(content(i, sent, size));
        latencies.record(performance.now() - sent);
        if (reply?.seq !== i) wrong++;
      });
      const seconds = (performance.now() - started) / 1000;
      await ctx.stopSampling();
      return {
        metrics: { rate: requests / seconds, ...latencies.summary(), wrong },
        messages: requests,
        note: rig.note?.(),
      };
    } finally {
      await rig.close();
    }
  },
};
