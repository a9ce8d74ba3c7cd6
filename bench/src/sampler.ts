import { readFileSync } from 'node:fs';

/** Clock ticks per second for /proc/<pid>/stat times (`getconf CLK_TCK`; 100 on every Linux we run on). */
const CLK_TCK = 100;
const INTERVAL_MS = 100;

export interface ProcessUsage {
  /** Average CPU over the sampled period; 100 = one full core. */
  cpuPct: number;
  /** CPU time over the sampled period, seconds (user + system). */
  cpuSeconds: number;
  /** Highest resident set size seen, MiB (summed over the sampled processes). */
  rssPeakMiB: number;
  /** Resident set size at the end, MiB. */
  rssEndMiB: number;
}

/** utime + stime of a process, in clock ticks; undefined when it has exited. */
export function readCpuTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/**
 * The whole machine's busy CPU time in clock ticks, every core: user, nice, system, irq, softirq and steal from the
 * first line of /proc/stat (idle and iowait left out).
 */
export function readMachineBusyTicks(): number {
  const [, user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n', 1)[0]
    .trim()
    .split(/\s+/)
    .map(Number);
  return user + nice + system + irq + softirq + steal;
}

/** VmRSS in KiB; undefined when the process has exited. */
export function readRssKiB(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return undefined;
  }
}

/** What a {@link ProcessSampler} measured: the broker's processes and the bench process itself (the client). */
export interface SampledUsage {
  broker: ProcessUsage;
  /** The bench process's CPU over the sampled period; 100 = one full core. */
  clientCpuPct: number;
  /** The bench process's CPU time over the sampled period, seconds (user + system, all its threads). */
  clientCpuSeconds: number;
  /**
   * What every other process of the machine used meanwhile (other people's work on a shared machine); 100 = one core.
   * CPU per message rises when they compete for the cores, so it says how far a round's figures can be trusted.
   */
  othersCpuPct: number;
}

/**
 * Samples the broker's CPU time and RSS from /proc while a measurement runs. The set of pids is asked for
 * at every tick, so a broker restarted during the measurement is followed to its new process.
 */
export class ProcessSampler {
  private readonly baseline = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private timer?: NodeJS.Timeout;
  private startedAt = 0;
  /** Each process's peak: a broker stopped during the measurement (a restart) is left out of the figure. */
  private readonly rssPeakByPid = new Map<number, number>();
  private rssLiveKiB = new Map<number, number>();
  private clientCpuStart?: NodeJS.CpuUsage;
  private machineBusyStart = 0;

  constructor(private readonly pids: () => number[]) {}

  start(): void {
    this.startedAt = performance.now();
    this.clientCpuStart = process.cpuUsage();
    this.machineBusyStart = readMachineBusyTicks();
    for (const pid of this.pids()) {
      const ticks = readCpuTicks(pid);
      if (ticks !== undefined) {
        this.baseline.set(pid, ticks);
        this.last.set(pid, ticks);
      }
    }
    this.sample();
    this.timer = setInterval(() => this.sample(), INTERVAL_MS);
    this.timer.unref();
  }

  stop(): SampledUsage {
    this.sample();
    clearInterval(this.timer);
    const seconds = (performance.now() - this.startedAt) / 1000;
    let ticks = 0;
    // A pid first seen after start() was started during the measurement, so all of its time counts.
    for (const [pid, end] of this.last) ticks += end - (this.baseline.get(pid) ?? 0);
    const client = process.cpuUsage(this.clientCpuStart);
    const clientSeconds = (client.user + client.system) / 1e6;
    const othersSeconds = (readMachineBusyTicks() - this.machineBusyStart - ticks) / CLK_TCK - clientSeconds;
    // No process seen at all (a reference with no server): no figure rather than a CPU time of zero.
    const cpuSeconds = this.last.size > 0 ? ticks / CLK_TCK : NaN;
    return {
      broker: {
        cpuPct: seconds > 0 ? (100 * cpuSeconds) / seconds : NaN,
        cpuSeconds,
        rssPeakMiB: cpuSeconds >= 0 ? this.rssPeakKiB() / 1024 : NaN,
        rssEndMiB: cpuSeconds >= 0 ? [...this.rssLiveKiB.values()].reduce((sum, kib) => sum + kib, 0) / 1024 : NaN,
      },
      clientCpuPct: seconds > 0 ? (100 * clientSeconds) / seconds : NaN,
      clientCpuSeconds: clientSeconds,
      othersCpuPct: seconds > 0 ? Math.max(0, (100 * othersSeconds) / seconds) : NaN,
    };
  }

  /**
   * The peak RSS of the processes running at the last sample (summed, each at its own peak): the broker that serves
   * at the end, not one stopped for a restart during the measurement (its memory was the previous phase's).
   */
  private rssPeakKiB(): number {
    let kib = 0;
    for (const pid of this.rssLiveKiB.keys()) kib += this.rssPeakByPid.get(pid) ?? 0;
    return kib;
  }

  private sample(): void {
    const live = new Map<number, number>();
    for (const pid of this.pids()) {
      const ticks = readCpuTicks(pid);
      const kib = readRssKiB(pid);
      if (ticks !== undefined) {
        if (!this.last.has(pid) && !this.baseline.has(pid)) this.baseline.set(pid, 0);
        this.last.set(pid, ticks);
      }
      if (kib !== undefined) {
        live.set(pid, kib);
        this.rssPeakByPid.set(pid, Math.max(this.rssPeakByPid.get(pid) ?? 0, kib));
      }
    }
    if (live.size > 0) this.rssLiveKiB = live;
  }
}
