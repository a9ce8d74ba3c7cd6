/** The longest turn of the event loop while some work ran, measured two ways. */
export interface LongestTurn {
  /** The longest gap between two turns, in wall-clock ms: what a client of this process waited. */
  wallMs: number;
  /** The most CPU time this process used between two turns, in ms: the work the loop did without yielding. */
  cpuMs: number;
}

/**
 * Runs `work` while a probe takes a turn of the event loop whenever it can, and returns the longest turn. A busy
 * machine deschedules the process now and then, which stretches wall-clock gaps but adds no CPU time: a test that
 * bounds `cpuMs` fails on work that does not yield, not on a machine busy with other work. (The CPU time is the
 * process's, all threads together: garbage collection in the background counts too, which only makes it stricter.)
 */
export async function longestTurn(work: () => Promise<unknown>): Promise<LongestTurn> {
  const longest: LongestTurn = { wallMs: 0, cpuMs: 0 };
  let lastWall = performance.now();
  let lastCpu = cpuMsNow();
  let running = true;
  const tick = (): void => {
    if (!running) return;
    const wall = performance.now();
    const cpu = cpuMsNow();
    longest.wallMs = Math.max(longest.wallMs, wall - lastWall);
    longest.cpuMs = Math.max(longest.cpuMs, cpu - lastCpu);
    lastWall = wall;
    lastCpu = cpu;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    await work();
  } finally {
    running = false;
  }
  return longest;
}

function cpuMsNow(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
