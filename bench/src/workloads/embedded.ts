import { fdatasyncLoop } from '../fdatasync-loop';
import { ProcessSampler, type SampledUsage } from '../sampler';
import type { EmbeddedApp } from '../systems/mmmq-embedded';
import type { System, TopicPlan } from '../systems/system';
import { EMBEDDED_PHASES, embeddedPattern, embeddedTopic, type EmbeddedPhase, phaseMessages, runPhase } from './embedded-phases';
import type { MetricDef, RoundContext, RoundOutcome, Workload } from './workload';

const cpu = (key: string, label: string): MetricDef => ({ key, label, unit: 'µs', better: 'lower' });

/** The workload's figures, by what each measures (`embedded-report.ts` reads them for the targets). */
export const EMBEDDED_METRICS = {
  rate: { key: 'rate', label: 'e2e msgs/s', unit: '/s', better: 'higher' },
  cpuUs: cpu('cpuUs', 'e2e server CPU/msg'),
  cpuUsAll: cpu('cpuUsAll', 'e2e server + client CPU/msg'),
  produceRate: { key: 'produceRate', label: 'produce one at a time msgs/s', unit: '/s', better: 'higher' },
  produceCpuUs: cpu('produceCpuUs', 'produce server CPU/msg'),
  fixedP50: { key: 'fixedP50', label: 'p50 at the fixed rate', unit: 'ms', better: 'lower' },
  fixedP99: { key: 'fixedP99', label: 'p99 at the fixed rate', unit: 'ms', better: 'lower' },
  fixedCpuUs: cpu('fixedCpuUs', 'fixed-rate server CPU/msg'),
  /** Whether the system kept up with the schedule: a p99 of one that fell behind grows with the phase's length. */
  fixedRate: { key: 'fixedRate', label: 'delivered/s at the fixed rate', unit: '/s', better: 'higher' },
  fdatasyncRate: { key: 'fdatasyncRate', label: 'bare fdatasync loop/s, preallocated', unit: '/s', better: 'higher', ratio: false },
  fdatasyncAppendRate: {
    key: 'fdatasyncAppendRate',
    label: 'bare fdatasync loop/s, appending',
    unit: '/s',
    better: 'higher',
    ratio: false,
  },
} as const satisfies Record<string, MetricDef>;

/** One phase's figures and the server's CPU over its measured part. */
interface PhaseResult {
  outcome: RoundOutcome;
  usage?: SampledUsage;
  messages: number;
}

/** Samples one process set over one phase's measured part, whichever side asks (the bench or the embedded app). */
class PhaseSampler {
  private readonly sampler: ProcessSampler;
  private state: 'before' | 'running' | 'done' = 'before';
  usage?: SampledUsage;

  constructor(pids: () => number[]) {
    this.sampler = new ProcessSampler(pids);
  }

  start(): void {
    if (this.state !== 'before') return;
    this.state = 'running';
    this.sampler.start();
  }

  stop(): void {
    if (this.state !== 'running') return;
    this.state = 'done';
    this.usage = this.sampler.stop();
  }
}

/** Each phase gets names of its own, so no phase sees another's queue, stream or consumer group. */
function phasePlan(plan: TopicPlan, phase: EmbeddedPhase): TopicPlan {
  const prefix = `${plan.prefix}-${phase}`;
  return { prefix, topics: plan.topics.map((topic) => prefix + topic.slice(plan.prefix.length)), groups: plan.groups };
}

/** A peer: each phase with its own Node client in the bench process, its server's CPU sampled around the measured part. */
async function peerPhase(system: System, ctx: RoundContext, phase: EmbeddedPhase): Promise<PhaseResult> {
  const sampler = new PhaseSampler(() => system.brokerPids());
  const phaseCtx: RoundContext = {
    ...ctx,
    plan: (topics, groups) => phasePlan(ctx.plan(topics, groups), phase),
    startSampling: async () => sampler.start(),
    stopSampling: async () => (sampler.stop(), sampler.usage),
  };
  try {
    const outcome = await runPhase(phase, system, phaseCtx);
    return { outcome, usage: sampler.usage, messages: phaseMessages(phase, ctx.config) };
  } finally {
    sampler.stop();
  }
}

/** MMMQ: each phase inside the one-app process, which asks the bench to sample it around the measured part. */
async function appPhase(app: EmbeddedApp, prefix: string, ctx: RoundContext, phase: EmbeddedPhase): Promise<PhaseResult> {
  const sampler = new PhaseSampler(() => (app.pid ? [app.pid] : []));
  try {
    const outcome = await app.run(phase, embeddedTopic(prefix, phase), ctx.config, sampler);
    return { outcome, usage: sampler.usage, messages: phaseMessages(phase, ctx.config) };
  } finally {
    sampler.stop();
  }
}

const perMessageUs = (seconds: number | undefined, messages: number) => (seconds === undefined ? NaN : (seconds * 1e6) / messages);
const serverUs = (r: PhaseResult) => perMessageUs(r.usage?.broker.cpuSeconds, r.messages);

function figures(results: Record<EmbeddedPhase, PhaseResult>): RoundOutcome {
  const { produce, saturation } = results;
  const fixed = results['fixed-rate'];
  const all = saturation.usage && saturation.usage.broker.cpuSeconds + saturation.usage.clientCpuSeconds;
  const notes = EMBEDDED_PHASES.flatMap((phase) => (results[phase].outcome.note ? [`${phase}: ${results[phase].outcome.note}`] : []));
  // The round's CPU per message over the three phases' measured parts only, not the set-up and the loop between them.
  const phases = EMBEDDED_PHASES.map((phase) => results[phase]);
  const messages = phases.reduce((sum, r) => sum + r.messages, 0);
  const total = (of: (usage: SampledUsage) => number) =>
    phases.every((r) => r.usage) ? phases.reduce((sum, r) => sum + of(r.usage!), 0) : undefined;
  const serverSeconds = total((u) => u.broker.cpuSeconds);
  const clientSeconds = total((u) => u.clientCpuSeconds);
  return {
    metrics: {
      brokerCpuUs: perMessageUs(serverSeconds, messages),
      clientCpuUs: perMessageUs(clientSeconds, messages),
      rate: saturation.outcome.metrics.rate,
      cpuUs: serverUs(saturation),
      cpuUsAll: perMessageUs(all, saturation.messages),
      produceRate: produce.outcome.metrics.rate,
      produceCpuUs: serverUs(produce),
      fixedP50: fixed.outcome.metrics.p50,
      fixedP99: fixed.outcome.metrics.p99,
      fixedCpuUs: serverUs(fixed),
      fixedRate: fixed.outcome.metrics.rate,
    },
    note: notes.length ? notes.join('; ') : undefined,
  };
}

/** `after`: what to do once `phase` has run, before the next one starts. */
async function runPhases(run: (phase: EmbeddedPhase) => Promise<PhaseResult>, after: (phase: EmbeddedPhase) => void = () => undefined) {
  const results = {} as Record<EmbeddedPhase, PhaseResult>;
  for (const phase of EMBEDDED_PHASES) {
    results[phase] = await run(phase);
    after(phase);
  }
  return figures(results);
}

/**
 * The *embedded* workload: MMMQ as its headline usage, the broker, a `@MMMQListener` and `Producer` in ONE Nest
 * application (its own process, driven over IPC), beside each peer with its own Node client: one-at-a-time confirmed
 * produce, end to end at saturation and the p99 at a fixed rate, each with the server's CPU per message. MMMQ's
 * "server" is the whole app (producer and listener included); a peer's is its server process alone, so
 * *server + client CPU* is the like-for-like column. MMMQ's round also times a bare fdatasync loop in the app's data dir, right after its produce phase.
 */
export const embedded: Workload = {
  id: 'embedded',
  title: () => 'Embedded: broker, listener and producer in one Nest app',
  describe: (c) =>
    `MMMQ as one Nest application in a process of its own: \`MmmqBrokerModule.forRoot()\` (a fresh data dir), \`MmmqConsumerModule.forRoot()\` with one \`@MMMQListener\` and \`MmmqProducerModule.forRoot()\`, no broker option, so \`Producer.produce\` commits through the broker's intake and the listener receives in process; the bench only tells it, over the child's IPC channel, which phase to run. Persistent messages of ${c.size / 1024} KiB. The peers run the same phases, with the same code, in the bench process with their own Node clients. Phases: *produce one at a time* — ${c.publishOne.toLocaleString('en')} confirmed publishes, each awaited before the next, no consumer (as publish-one); *e2e* — ${c.e2e.toLocaleString('en')} messages with a window of ${c.window.toLocaleString('en')} unacknowledged publishes to one listener, msgs/s = messages / (last delivery − first publish) (as e2e-saturation); *p99 at the fixed rate* — ${c.ratePerSecond.toLocaleString('en')} msg/s for ${c.rateSeconds} s, open loop, latency from when each message was due (as e2e-fixed-rate). *server CPU/msg* (µs): CPU time of the server's process from \`/proc/<pid>/stat\` over the phase's measured part ÷ its messages — for MMMQ the whole app (broker, producer and listener), for a peer its server alone (RabbitMQ: the whole \`beam.smp\` node); *server + client CPU/msg* adds the bench process (the peers' clients; for MMMQ only the IPC). *bare fdatasync loop/s* (MMMQ's round, by the bench right after the produce phase, the app idle): ${c.publishOne.toLocaleString('en')} times, write ${c.size / 1024} KiB at the next offset of a file in the app's data dir and \`fdatasync\` it, one at a time, with nothing else — *preallocated*: into blocks written beforehand, the disk's physical limit and what MMMQ's journal does (it preallocates its files); *appending*: growing the file, so each fdatasync also commits the new size.`,
  metrics: Object.values(EMBEDDED_METRICS),
  headline: 'rate',
  applies: (s) =>
    s.kind === 'mmmq-transport'
      ? "MMMQ's libraries on RabbitMQ: the embedded workload compares MMMQ's one-app form with the peers' own clients"
      : true,
  hardLimitSeconds: (c) => 3 * c.roundTimeoutSeconds * EMBEDDED_PHASES.length,
  async run(system, ctx) {
    if (!system.startEmbeddedApp) {
      await ctx.startSampling();
      const outcome = await runPhases((phase) => peerPhase(system, ctx, phase));
      await ctx.stopSampling();
      return outcome;
    }
    const { prefix } = ctx.plan(1, 1);
    const app = await system.startEmbeddedApp(embeddedPattern(prefix));
    const loops: Record<string, number> = {};
    // Right after the produce phase, while the app is idle: this disk is shared, and its fsync latency drifts by
    // the minute, so the figures are compared only when timed close together.
    const loopAfterProduce = (phase: EmbeddedPhase) => {
      if (phase !== 'produce') return;
      const { publishOne, size } = ctx.config;
      loops.fdatasyncRate = fdatasyncLoop(app.rootDir, publishOne, size, 'preallocated');
      loops.fdatasyncAppendRate = fdatasyncLoop(app.rootDir, publishOne, size, 'append');
    };
    try {
      await ctx.startSampling(() => (app.pid ? [app.pid] : []));
      const outcome = await runPhases((phase) => appPhase(app, prefix, ctx, phase), loopAfterProduce);
      await ctx.stopSampling();
      Object.assign(outcome.metrics, loops);
      return outcome;
    } finally {
      await app.stop();
    }
  },
};
