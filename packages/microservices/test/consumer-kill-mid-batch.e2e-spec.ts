import { BrokerApp, FAST_BACKOFF, freePort, startBroker, waitFor } from '@mmmq/test-support';
import { MicroserviceProcess, ProcessEvent, spawnSlowHandlerMicroservice } from './support/microservice-process';

/** Default consumer id of `@EventPattern('job.*')` in app 'drain' (test/support/slow-handler-microservice.main.ts). */
const CONSUMER_ID = 'drain.job.any';
const TOPIC = 'job.run';
const JOBS = 40;
/** One push carries them all. */
const BATCH_SIZE = 100;
const HANDLER_MS = 40;
/** Handled before the kill: enough that re-running the whole push would be plain. */
const HANDLED_BEFORE_KILL = 10;

const named = (events: readonly ProcessEvent[], event: string) => events.filter((entry) => entry.event === event).map(({ name }) => name!);

describe('a push MmmqServer killed in the middle of a batched push', () => {
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

  it('re-runs only the handler that was running, not the handlers of the push that finished', async () => {
    const advertisedUrl = `http://127.0.0.1:${await freePort()}`;
    const first = await spawn(advertisedUrl);
    await broker.publishAll(
      TOPIC,
      Array.from({ length: JOBS }, (_, i) => ({ name: `j${i}` })),
    );
    await waitFor(() => named(first.events, 'finished').length >= HANDLED_BEFORE_KILL, {
      message: () => `${HANDLED_BEFORE_KILL} jobs to finish on the first instance\n${first.output()}`,
    });
    await first.kill();
    // Everything it wrote before it died has been read by now (the pipe closed).
    const startedFirst = named(first.events, 'started');
    const finishedFirst = named(first.events, 'finished');
    expect(startedFirst.length).toBeLessThan(JOBS);

    const second = await spawn(advertisedUrl);
    await waitFor(() => new Set([...finishedFirst, ...named(second.events, 'finished')]).size === JOBS, {
      message: () => `every job to finish on one instance or the other\n${second.output()}`,
    });
    await broker.caughtUp(CONSUMER_ID, TOPIC);

    const reRun = named(second.events, 'started').filter((name) => startedFirst.includes(name));
    // The handler running at the kill, and at most the one that had just returned, its acknowledgement not yet sent.
    const unsettledAtKill = startedFirst.filter((name) => !finishedFirst.includes(name));
    const justFinished = finishedFirst.slice(-1);
    expect(reRun.length).toBeLessThanOrEqual(2);
    for (const name of reRun) expect([...unsettledAtKill, ...justFinished]).toContain(name);
    // Nothing acknowledged is lost: every job ran, none was dead-lettered.
    expect((await broker.subscription(CONSUMER_ID, TOPIC)).stats.delivered).toBe(JOBS);
    expect(await broker.deadLetters(CONSUMER_ID)).toEqual([]);
  }, 120_000);
});
