import { ATTACH_LANES, AttachQueue } from '../../src/dispatch/attach-queue';

describe('AttachQueue', () => {
  it('attaches every topic queued before a run starts in that run, at most ATTACH_LANES at once', async () => {
    let release!: () => void;
    const lock = new Promise<void>((resolve) => (release = resolve));
    const runs: Array<Promise<void>> = [];
    let running = 0;
    let most = 0;
    const queue = new AttachQueue<number>(
      (run) => runs.push(lock.then(run)),
      async () => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 1));
        running--;
      },
    );
    const attached = Array.from({ length: 40 }, (_, i) => queue.add(i));
    expect(runs).toHaveLength(1);
    release();
    await Promise.all(attached);
    expect(most).toBe(ATTACH_LANES);
    // Queued after the run began: a run of its own.
    await queue.add(40);
    expect(runs).toHaveLength(2);
  });

  it("rejects a topic's promise with what its attach threw, and attaches the others", async () => {
    const queue = new AttachQueue<number>(
      (run) => void run(),
      async (i) => {
        if (i === 1) throw new Error('no descriptor');
      },
    );
    const results = await Promise.allSettled([0, 1, 2].map((i) => queue.add(i)));
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});
