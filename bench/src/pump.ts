import { sleep } from './services';

/**
 * Calls `send(i)` for i in 0..count-1 with at most `window` calls unresolved at once, and resolves once
 * all have resolved. The first rejection rejects the whole pump (and stops launching new sends).
 */
export function pump(count: number, window: number, send: (i: number) => Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    if (count === 0) return resolve();
    let next = 0;
    let settled = 0;
    let failed = false;
    const onDone = () => {
      settled++;
      if (settled === count) resolve();
      else launch();
    };
    const onError = (error: unknown) => {
      if (failed) return;
      failed = true;
      reject(error);
    };
    const launch = () => {
      while (!failed && next < count && next - settled < window) {
        const i = next++;
        let p: Promise<void>;
        try {
          p = send(i);
        } catch (error) {
          onError(error);
          return;
        }
        p.then(onDone, onError);
      }
    };
    launch();
  });
}

/**
 * Open-loop publishing at a fixed rate: every millisecond, sends every message whose scheduled time has
 * come. `send(i, due)` gets the scheduled time so latency is measured from when the message was due, not
 * from when a backed-up client got round to it (no coordinated omission). At most `maxOutstanding` sends
 * are unresolved at once; past that the schedule slips and the latency shows it.
 */
export async function paced(
  count: number,
  perSecond: number,
  maxOutstanding: number,
  send: (i: number, due: number) => Promise<void>,
): Promise<void> {
  const start = performance.now() + 5;
  const interval = 1000 / perSecond;
  let next = 0;
  let outstanding = 0;
  let error: unknown;
  const all: Promise<void>[] = [];
  while (next < count) {
    if (error) throw error;
    const now = performance.now();
    while (next < count && start + next * interval <= now && outstanding < maxOutstanding) {
      const i = next++;
      outstanding++;
      all.push(
        send(i, start + i * interval).then(
          () => void outstanding--,
          (e) => {
            outstanding--;
            error ??= e;
          },
        ),
      );
    }
    await sleep(1);
  }
  await Promise.all(all);
  if (error) throw error;
}
