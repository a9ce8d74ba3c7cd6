import { BrokerApp, FAST_BACKOFF, freePort, startBroker, waitFor } from '@mmmq/test-support';
import { MicroserviceProcess, ProcessEvent, SlowHandlerEnv, spawnSlowHandlerMicroservice } from './support/microservice-process';

/** Default consumer id of `@EventPattern('job.*')` in app 'drain' (test/support/slow-handler-microservice.main.ts). */
const CONSUMER_ID = 'drain.job.any';
const TOPIC = 'job.run';
const HANDLER_MS = 1_500;
/** The running handler's remaining time, the last ACK and Nest's close, with room for a busy machine. */
const EXIT_DEADLINE_MS = 10_000;

const named = (events: readonly ProcessEvent[], event: string) => events.filter((entry) => entry.event === event).map(({ name }) => name);

describe.each(['push', 'pull'] as const)('SIGTERM on a standalone MmmqServer microservice (%s)', (delivery) => {
  let broker: BrokerApp;
  const processes: MicroserviceProcess[] = [];

  beforeAll(async () => {
    broker = await startBroker({ delivery: FAST_BACKOFF });
  });
  afterAll(async () => {
    await Promise.all(processes.map((child) => child.kill()));
    await broker?.close();
  });

  const spawn = async (env: Omit<SlowHandlerEnv, 'BROKER_URL' | 'DELIVERY' | 'HANDLER_MS'>) => {
    const child = await spawnSlowHandlerMicroservice({
      BROKER_URL: broker.url,
      DELIVERY: delivery,
      HANDLER_MS: String(HANDLER_MS),
      ...env,
    });
    processes.push(child);
    return child;
  };

  it('finishes and acknowledges the running handler, exits 0, and leaves the messages not started to the next instance', async () => {
    const port = await freePort();
    const env = delivery === 'push' ? { ADVERTISED_URL: `http://127.0.0.1:${port}` } : {};
    const first = await spawn(env);
    await broker.publishAll(TOPIC, [{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    await waitFor(() => named(first.events, 'started').includes('a'), { message: () => `job a to start\n${first.output()}` });

    const signalledAt = Date.now();
    first.child.kill('SIGTERM');
    const exit = await Promise.race([
      first.exited,
      new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), EXIT_DEADLINE_MS).unref()),
    ]);
    expect(exit).toEqual({ code: 0, signal: null });
    const exitMs = Date.now() - signalledAt;
    // It waited for the handler, which had up to HANDLER_MS left, rather than dying at once.
    expect(named(first.events, 'finished')).toEqual(['a']);
    expect(named(first.events, 'started')).toEqual(['a']);

    // a is settled on the broker: the position moved past it, nothing is leased, one ACK.
    const afterFirst = await broker.subscription(CONSUMER_ID, TOPIC);
    expect(afterFirst).toMatchObject({ position: 1, tail: 3, lag: 2, leased: 0 });
    expect(afterFirst.stats.delivered).toBe(1);

    const second = await spawn(env);
    await waitFor(() => named(second.events, 'finished').length === 2, {
      message: () => `b and c on the second instance\n${second.output()}`,
    });
    await broker.caughtUp(CONSUMER_ID, TOPIC);
    expect(named(second.events, 'started')).toEqual(['b', 'c']);
    expect((await broker.subscription(CONSUMER_ID, TOPIC)).stats.delivered).toBe(3);
    expect(await broker.deadLetters(CONSUMER_ID)).toEqual([]);

    second.child.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });
    expect(exitMs).toBeLessThan(EXIT_DEADLINE_MS);
  }, 120_000);
});
