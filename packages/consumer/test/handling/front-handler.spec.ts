import { ConsumerClosingError } from '../../src/errors/consumer-closing.error';
import { HandlerAbandonedError } from '../../src/errors/handler-abandoned.error';
import { QueueFullError } from '../../src/errors/queue-full.error';
import { FrontHandler, Lane } from '../../src/handling/front-handler';
import { Gate } from '../support/gate';
import { flushPromises } from '../support/wait-for';

const ordered = (key: string): Lane => ({ key, concurrency: 1 });

/** Records when each task starts and holds it until its gate opens. */
class Tasks {
  readonly started: string[] = [];
  readonly gates = new Map<string, Gate>();

  task(name: string): () => Promise<string> {
    const gate = new Gate();
    this.gates.set(name, gate);
    return async () => {
      this.started.push(name);
      await gate.promise;
      return name;
    };
  }

  finish(name: string): void {
    this.gates.get(name)!.open();
  }
}

describe('FrontHandler', () => {
  describe('a job that releases its slot', () => {
    it('lets the next job of its lane start while it runs on, still counts as running, and is waited for by close', async () => {
      const handler = new FrontHandler({ queueSize: 10, maxWorkers: 1 });
      const tasks = new Tasks();
      const held = new Gate();
      let releasing = false;
      const first = handler.submit(ordered('a'), async (release) => {
        tasks.started.push('a1');
        release();
        release();
        releasing = true;
        await held.promise;
        return 'a1';
      });
      void handler.submit(ordered('a'), tasks.task('a2'));
      void handler.submit(ordered('a'), tasks.task('a3'));
      await flushPromises();
      expect(releasing).toBe(true);
      // Released once (a second call changes nothing): a2 holds the one worker, a3 waits for it.
      expect(tasks.started).toEqual(['a1', 'a2']);
      expect(handler.load).toEqual({ running: 2, waiting: 1 });
      tasks.finish('a2');
      await flushPromises();
      expect(tasks.started).toEqual(['a1', 'a2', 'a3']);
      tasks.finish('a3');
      let closed = false;
      const closing = handler.close(10_000).then(() => (closed = true));
      await flushPromises();
      expect(closed).toBe(false);
      held.open();
      await closing;
      await expect(first).resolves.toBe('a1');
    });
  });

  describe('acceptWhenRoom', () => {
    it('waits for room in a full queue instead of refusing, and is accepted once a job starts', async () => {
      const handler = new FrontHandler({ queueSize: 1, maxWorkers: 1 });
      const tasks = new Tasks();
      void handler.submit(ordered('a'), tasks.task('a1'));
      void handler.submit(ordered('b'), tasks.task('b1'));
      let accepted = false;
      const third = handler.acceptWhenRoom(ordered('c'), tasks.task('c1')).then((job) => ((accepted = true), job));
      await flushPromises();
      expect(accepted).toBe(false);

      tasks.finish('a1');
      const { outcome } = await third;
      expect(handler.load).toEqual({ running: 1, waiting: 1 });
      tasks.finish('b1');
      tasks.finish('c1');
      await expect(outcome).resolves.toBe('c1');
      expect(tasks.started).toEqual(['a1', 'b1', 'c1']);
    });

    it('rejects a job still waiting for room with ConsumerClosingError when the handler closes', async () => {
      const handler = new FrontHandler({ queueSize: 1, maxWorkers: 1 });
      const tasks = new Tasks();
      void handler.submit(ordered('a'), tasks.task('a1'));
      void handler.submit(ordered('b'), tasks.task('b1')).catch(() => undefined);
      const waiting = handler.acceptWhenRoom(ordered('c'), tasks.task('c1'));
      const closing = handler.close(1_000);
      await expect(waiting).rejects.toBeInstanceOf(ConsumerClosingError);
      tasks.finish('a1');
      await closing;
      expect(tasks.started).toEqual(['a1']);
    });
  });

  describe('submit', () => {
    it('refuses a job with QueueFullError when no worker is free and queueSize jobs wait', async () => {
      const handler = new FrontHandler({ queueSize: 1, maxWorkers: 1 });
      const tasks = new Tasks();
      const first = handler.submit(ordered('a'), tasks.task('a1'));
      const second = handler.submit(ordered('b'), tasks.task('b1'));
      await expect(handler.submit(ordered('c'), tasks.task('c1'))).rejects.toBeInstanceOf(QueueFullError);
      expect(handler.load).toEqual({ running: 1, waiting: 1 });

      tasks.finish('a1');
      tasks.finish('b1');
      await expect(first).resolves.toBe('a1');
      await expect(second).resolves.toBe('b1');
      expect(tasks.started).toEqual(['a1', 'b1']);
    });

    it('lets an unbounded job wait even when the queue is full', async () => {
      const handler = new FrontHandler({ queueSize: 1, maxWorkers: 1 });
      const tasks = new Tasks();
      const jobs = ['a1', 'a2', 'a3'].map((name) => handler.submit(ordered('a'), tasks.task(name), { bounded: false }));
      expect(handler.load).toEqual({ running: 1, waiting: 2 });
      for (const name of ['a1', 'a2', 'a3']) tasks.finish(name);
      await expect(Promise.all(jobs)).resolves.toEqual(['a1', 'a2', 'a3']);
    });

    it('handles the jobs of one lane one after another, in arrival order, while other lanes proceed', async () => {
      const handler = new FrontHandler({ queueSize: 10, maxWorkers: 5 });
      const tasks = new Tasks();
      const jobs = [
        handler.submit(ordered('a'), tasks.task('a1')),
        handler.submit(ordered('a'), tasks.task('a2')),
        handler.submit(ordered('b'), tasks.task('b1')),
        handler.submit(ordered('a'), tasks.task('a3')),
      ];
      await flushPromises();
      expect(tasks.started).toEqual(['a1', 'b1']);

      tasks.finish('a1');
      await flushPromises();
      expect(tasks.started).toEqual(['a1', 'b1', 'a2']);
      tasks.finish('a2');
      await flushPromises();
      expect(tasks.started).toEqual(['a1', 'b1', 'a2', 'a3']);
      tasks.finish('a3');
      tasks.finish('b1');
      await expect(Promise.all(jobs)).resolves.toEqual(['a1', 'a2', 'b1', 'a3']);
    });

    it('runs up to the lane concurrency at once when a listener opts into it', async () => {
      const handler = new FrontHandler({ queueSize: 10, maxWorkers: 5 });
      const tasks = new Tasks();
      const lane: Lane = { key: 'a', concurrency: 3 };
      for (const name of ['a1', 'a2', 'a3', 'a4']) void handler.submit(lane, tasks.task(name));
      await flushPromises();
      expect(tasks.started).toEqual(['a1', 'a2', 'a3']);

      tasks.finish('a2');
      await flushPromises();
      expect(tasks.started).toEqual(['a1', 'a2', 'a3', 'a4']);
    });

    it('never runs more than maxWorkers jobs at once, all lanes together', async () => {
      const handler = new FrontHandler({ queueSize: 10, maxWorkers: 2 });
      const tasks = new Tasks();
      for (const key of ['a', 'b', 'c', 'd']) void handler.submit(ordered(key), tasks.task(key));
      await flushPromises();
      expect(tasks.started).toEqual(['a', 'b']);
      expect(handler.load).toEqual({ running: 2, waiting: 2 });

      tasks.finish('b');
      await flushPromises();
      expect(tasks.started).toEqual(['a', 'b', 'c']);
    });

    it('settles with the task error and frees the worker', async () => {
      const handler = new FrontHandler({ queueSize: 1, maxWorkers: 1 });
      await expect(handler.submit(ordered('a'), () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
      await expect(handler.submit(ordered('a'), async () => 'next')).resolves.toBe('next');
    });
  });

  describe('close', () => {
    it('refuses new jobs and waiting jobs at once, and waits for the running ones', async () => {
      const handler = new FrontHandler({ queueSize: 10, maxWorkers: 1 });
      const tasks = new Tasks();
      const running = handler.submit(ordered('a'), tasks.task('a1'));
      const waiting = handler.submit(ordered('a'), tasks.task('a2'));
      await flushPromises();

      let closed = false;
      const closing = handler.close(60_000).then(() => (closed = true));
      await expect(waiting).rejects.toBeInstanceOf(ConsumerClosingError);
      await expect(handler.submit(ordered('b'), tasks.task('b1'))).rejects.toBeInstanceOf(ConsumerClosingError);
      await flushPromises();
      expect(closed).toBe(false);

      tasks.finish('a1');
      await closing;
      await expect(running).resolves.toBe('a1');
      expect(tasks.started).toEqual(['a1']);
    });

    it('settles a job still running at the timeout with HandlerAbandonedError, never with its late result', async () => {
      const handler = new FrontHandler({ queueSize: 10, maxWorkers: 1 });
      const tasks = new Tasks();
      const running = handler.submit(ordered('a'), tasks.task('a1'));
      await flushPromises();

      await handler.close(20);
      await expect(running).rejects.toBeInstanceOf(HandlerAbandonedError);
      tasks.finish('a1');
      await flushPromises();
      expect(handler.load).toEqual({ running: 0, waiting: 0 });
    });

    it('returns the same promise when called twice', async () => {
      const handler = new FrontHandler({ queueSize: 1, maxWorkers: 1 });
      const first = handler.close(10);
      expect(handler.close(99_999)).toBe(first);
      await first;
    });
  });

  it('reports how long its oldest handler has run and how long the queue has been full, for the health check', async () => {
    const tasks = new Tasks();
    const handler = new FrontHandler({ queueSize: 1, maxWorkers: 1 });
    const startedAt = Date.now();
    expect(handler.stalls(startedAt)).toEqual({ longestRunningMs: 0, queueFullMs: 0 });
    const running = handler.submit(ordered('a'), tasks.task('a'));
    const waiting = handler.submit(ordered('b'), tasks.task('b'));
    const later = Date.now() + 5_000;
    const stalls = handler.stalls(later);
    expect(stalls.longestRunningMs).toBeGreaterThanOrEqual(5_000);
    expect(stalls.queueFullMs).toBeGreaterThanOrEqual(5_000);
    tasks.finish('a');
    await running;
    await flushPromises();
    expect(handler.stalls(later).queueFullMs).toBe(0);
    tasks.finish('b');
    await waiting;
    await flushPromises();
    expect(handler.stalls()).toEqual({ longestRunningMs: 0, queueFullMs: 0 });
  });
});
