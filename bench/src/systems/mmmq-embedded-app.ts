import 'reflect-metadata';
import { Producer } from '@mmmq/producer';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { BenchConfig } from '../config';
import { type EmbeddedPhase, runPhase } from '../workloads/embedded-phases';
import type { RoundContext } from '../workloads/workload';
import type { FromEmbeddedApp, ToEmbeddedApp } from './embedded-protocol';
import { NEST_LOGGER, registered } from './mmmq-consumer-app';
import { benchListener, BenchEmbeddedAppModule } from './mmmq-nest-modules';
import type { MessagePath, OnMessage } from './system';

/**
 * The embedded workload's MMMQ side, run by the bench as a child process with an IPC channel (`mmmq-embedded.ts`):
 * ONE Nest application with `MmmqBrokerModule.forRoot()` on `BENCH_EMBEDDED_ROOT_DIR`, `MmmqConsumerModule.forRoot()`
 * and `MmmqProducerModule.forRoot()`, no broker option, so the producer commits through the broker's intake and the
 * listener of `BENCH_EMBEDDED_PATTERN` receives in process. It runs the phases the bench asks for with the same code
 * as the peers' (`runPhase`), so publishing, delivery and latency are all measured in this process.
 */

const send = (message: FromEmbeddedApp) => process.send!(message);

/** The running phase's consumer; the listener hands it every delivery (nothing is consumed between phases). */
let deliver: OnMessage | undefined;
/** Resolves the app's pending request to the bench to sample its CPU. */
let sampled: (() => void) | undefined;

function askToSample(at: 'start' | 'stop'): Promise<void> {
  return new Promise((resolve) => {
    sampled = resolve;
    send({ kind: 'sample', at });
  });
}

/** The producer and the in-process listener as the phases see a system. */
function inProcessPath(producer: Producer): MessagePath {
  return {
    // Topics are created by their first message; the listener subscribed to the pattern at bootstrap.
    declare: async () => undefined,
    publish: async (topic, content) => void (await producer.produce(topic, content)),
    consume: async (_plan, onMessage) => {
      deliver = onMessage;
      return { close: async () => void (deliver = undefined) };
    },
    drop: async () => undefined,
  };
}

function phaseContext(config: BenchConfig, topic: string): RoundContext {
  let sampling: 'before' | 'running' | 'done' = 'before';
  return {
    config,
    round: 0,
    plan: () => ({ prefix: topic, topics: [topic], groups: ['g0'] }),
    startSampling: async () => {
      if (sampling !== 'before') return;
      sampling = 'running';
      await askToSample('start');
    },
    stopSampling: async () => {
      if (sampling !== 'running') return undefined;
      sampling = 'done';
      await askToSample('stop');
      return undefined; // the bench holds the figures
    },
  };
}

async function main(): Promise<void> {
  const { BENCH_EMBEDDED_ROOT_DIR: rootDir, BENCH_EMBEDDED_PATTERN: pattern } = process.env;
  if (!rootDir || !pattern || !process.send) throw new Error('run by the bench: BENCH_EMBEDDED_ROOT_DIR, BENCH_EMBEDDED_PATTERN, IPC');
  const listener = benchListener(pattern, 0, (group, content) => deliver?.(group, content), {
    name: 'bench-embedded',
    consumerId: 'bench-embedded',
  });
  // A plain application as the getting-started guide builds it: no body-parser or other option for the broker.
  const app = await NestFactory.create(BenchEmbeddedAppModule.register(rootDir, listener), new FastifyAdapter(), {
    logger: NEST_LOGGER,
    abortOnError: false,
  });
  app.enableShutdownHooks();
  await app.listen(0, '127.0.0.1');
  await registered(app);
  const path = inProcessPath(app.get(Producer));
  let running: EmbeddedPhase | undefined;
  process.on('message', (message: ToEmbeddedApp) => {
    if (message.kind === 'sampled') {
      sampled?.();
      sampled = undefined;
      return;
    }
    if (running) return send({ kind: 'failed', message: `asked for ${message.phase} while ${running} runs` });
    running = message.phase;
    runPhase(message.phase, path, phaseContext(message.config, message.topic))
      .then(
        (outcome): FromEmbeddedApp => ({ kind: 'done', outcome }),
        (error: Error): FromEmbeddedApp => ({ kind: 'failed', message: error.stack ?? error.message }),
      )
      .then((reply) => {
        // Free before answering: the bench sends the next phase as soon as it has the answer.
        running = undefined;
        send(reply);
      });
  });
  // The bench went away without stopping the app: shut down cleanly rather than linger.
  process.once('disconnect', () => void app.close().finally(() => process.exit(0)));
  send({ kind: 'ready' });
}

main().catch((error: Error) => {
  process.stderr.write(`${error.stack ?? error.message}\n`);
  process.exit(1);
});
