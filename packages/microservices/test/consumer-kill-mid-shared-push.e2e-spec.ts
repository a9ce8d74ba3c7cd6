import { BrokerApp, FAST_BACKOFF, freePort, startBroker, waitFor } from '@mmmq/test-support';
import { MicroserviceProcess, ProcessEvent, spawnSlowHandlerMicroservice } from './support/microservice-process';

/** Default consumer id of `@EventPattern('job.*')` in app 'drain' (test/support/slow-handler-microservice.main.ts). */
const CONSUMER_ID = 'drain.job.any';
/** Three subscriptions of one consumer id at one host: their windows travel in shared pushes. */
const TOPICS = ['job.a', 'job.b', 'job.c'];
const JOBS_PER_TOPIC = 15;
const JOBS = TOPICS.length * JOBS_PER_TOPIC;
const BATCH_SIZE = 100;
const HANDLER_MS = 40;
const KILLS = 3;
/** Handled by each instance before it is killed. */
const HANDLED_PER_INSTANCE = 6;

const named = (events: readonly ProcessEvent[], event: string) => events.filter((entry) => entry.event === event).map(({ name }) => name!);

describe('a push MmmqServer killed again and again in the middle of shared pushes', () => {
  let broker: BrokerApp;
  const processes: MicroserviceProcess[] = [];

  beforeAll(async () => {
    broker = await startBroker({ delivery: FAST_BACKOFF });
  });
  afterAll(async () => {
    await Promise.all(processes.map((child) => child.kill()));
    await broker?.close();
  });

  const spawn = async (advertisedUrl: string) => {
    const child = await spawnSlowHandlerMicroservice({
      BROKER_URL: broker.url,
      DELIVERY: 'push',
      HANDLER_MS: String(HANDLER_MS),
      ADVERTISED_URL: advertisedUrl,
      BATCH_SIZE: String(BATCH_SIZE),
    });
    processes.push(child);
    return child;
  };

  it('re-runs at most the handlers in flight at each kill, and loses nothing', async () => {
    const advertisedUrl = `http://127.0.0.1:${await freePort()}`;
    let instance = await spawn(advertisedUrl);
    // Its first answer says it takes shared pushes; from then on the three topics' windows travel together.
    await broker.publish(TOPICS[0], { name: 'warm-up' });
    await waitFor(() => named(instance.events, 'finished').includes('warm-up'), { message: () => `the warm-up job\n${instance.output()}` });
    const published = (i: number) => ({ name: `${TOPICS[i % TOPICS.length]}-${Math.floor(i / TOPICS.length)}` });
    const messages = Array.from({ length: JOBS }, (_, i) => ({ topic: TOPICS[i % TOPICS.length], content: published(i) }));
    expect((await broker.request('POST', '/mmmq/messages/batch', { messages })).status).toBe(200);

    const finished = new Set<string>(['warm-up']);
    /** Per kill: what that instance had started and not finished, and the handler that had just returned. */
    const inFlightAtKills: string[] = [];
    const startedBefore = new Set<string>();
    const reRun: string[] = [];
    for (let kill = 0; kill <= KILLS; kill++) {
      if (kill > 0) instance = await spawn(advertisedUrl);
      const current = instance;
      const target = Math.min(finished.size + HANDLED_PER_INSTANCE, JOBS + 1);
      const last = kill === KILLS;
      await waitFor(() => new Set([...finished, ...named(current.events, 'finished')]).size >= (last ? JOBS + 1 : target), {
        message: () => `jobs to finish on instance ${kill + 1}\n${current.output()}`,
      });
      if (!last) await current.kill();
      const started = named(current.events, 'started');
      const done = named(current.events, 'finished');
      reRun.push(...started.filter((name) => startedBefore.has(name)));
      if (!last) inFlightAtKills.push(...started.filter((name) => !done.includes(name)), ...done.slice(-1));
      for (const name of started) startedBefore.add(name);
      for (const name of done) finished.add(name);
    }
    await Promise.all(TOPICS.map((topic) => broker.caughtUp(CONSUMER_ID, topic)));
    // The kills cut shared pushes off (a member keeps its last error after it recovers).
    for (const topic of TOPICS) {
      expect((await broker.subscription(CONSUMER_ID, topic)).members[0].lastError).toContain('/mmmq/messages/shared');
    }

    // Nothing acknowledged is lost: every job finished, none was dead-lettered.
    expect(finished.size).toBe(JOBS + 1);
    expect(await broker.deadLetters(CONSUMER_ID)).toEqual([]);
    // Nothing settled ran again: only handlers running at a kill (or returned in the instant before it, their line
    // not yet written) — one at a time here (concurrency 1), so at most two per kill.
    for (const name of reRun) expect(inFlightAtKills).toContain(name);
    expect(reRun.length).toBeLessThanOrEqual(2 * KILLS);
  }, 240_000);
});
