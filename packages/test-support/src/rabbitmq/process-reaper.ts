/** Process groups of RabbitMQ nodes still running, killed when the test process exits however it exits. */
const liveGroups = new Set<number>();
let installed = false;

/** Kills `pgid`'s whole group (the start script and its Erlang VM) with SIGKILL; false when it was gone. */
export function killGroup(pgid: number): boolean {
  try {
    process.kill(-pgid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}

/**
 * Remembers a node's process group so that a test run that dies (a failed `beforeAll`, a jest timeout, Ctrl-C)
 * leaves no Erlang VM behind holding ports and memory on a shared machine.
 */
export function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  if (installed) return;
  installed = true;
  process.once('exit', () => {
    for (const group of liveGroups) killGroup(group);
  });
}

export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
}
