import { PushOutOfOrderError } from '../../src/errors/push-out-of-order.error';
import { PushSequencer } from '../../src/handling/push-sequencer';
import { Gate } from '../support/gate';
import { flushPromises } from '../support/wait-for';

/** Pushes whose handling starts, is recorded, and ends when their gate opens (or fails when told to). */
class Pushes {
  readonly started: string[] = [];
  private readonly gates = new Map<string, Gate>();

  constructor(private readonly sequencer: PushSequencer) {}

  send(sequence: number, session = 's1', topic = 'order.created', outcome: 'ok' | 'fail' = 'ok'): Promise<number> {
    const gate = new Gate();
    this.gates.set(`${session}/${sequence}`, gate);
    return this.sequencer.run('billing', topic, { session, sequence }, async () => {
      this.started.push(`${session}/${sequence}`);
      await gate.promise;
      if (outcome === 'fail') throw new Error(`push ${sequence} failed`);
      return sequence;
    });
  }

  finish(sequence: number, session = 's1'): void {
    this.gates.get(`${session}/${sequence}`)!.open();
  }
}

describe('PushSequencer', () => {
  it('handles the pushes of a session in sequence order, one at a time, whatever order they arrive in', async () => {
    const pushes = new Pushes(new PushSequencer());
    const third = pushes.send(2);
    const second = pushes.send(1);
    await flushPromises();
    expect(pushes.started).toEqual([]);

    const first = pushes.send(0);
    await flushPromises();
    expect(pushes.started).toEqual(['s1/0']);
    pushes.finish(0);
    await expect(first).resolves.toBe(0);
    await flushPromises();
    expect(pushes.started).toEqual(['s1/0', 's1/1']);
    pushes.finish(1);
    pushes.finish(2);
    await expect(Promise.all([second, third])).resolves.toEqual([1, 2]);
    expect(pushes.started).toEqual(['s1/0', 's1/1', 's1/2']);
  });

  it('keeps subscriptions apart: another topic of the same consumer does not wait', async () => {
    const pushes = new Pushes(new PushSequencer(50));
    const waiting = pushes.send(1, 's1', 'order.created');
    const other = pushes.send(0, 's2', 'order.paid');
    pushes.finish(0, 's2');
    await expect(other).resolves.toBe(0);
    await expect(waiting).rejects.toBeInstanceOf(PushOutOfOrderError);
  });

  it('after a failed push refuses the pushes behind it, so the broker resends them in order', async () => {
    const pushes = new Pushes(new PushSequencer());
    const first = pushes.send(0, 's1', 'order.created', 'fail');
    const second = pushes.send(1);
    const third = pushes.send(2);
    pushes.finish(0);
    await expect(first).rejects.toThrow('push 0 failed');
    await expect(second).rejects.toBeInstanceOf(PushOutOfOrderError);
    await expect(third).rejects.toBeInstanceOf(PushOutOfOrderError);
    await expect(pushes.send(3)).rejects.toBeInstanceOf(PushOutOfOrderError);
    expect(pushes.started).toEqual(['s1/0']);
  });

  it("starts a new session only after the running push of the old one, refusing the old one's waiting pushes", async () => {
    const pushes = new Pushes(new PushSequencer());
    const running = pushes.send(0, 'old');
    const waiting = pushes.send(2, 'old');
    await flushPromises();
    const replacement = pushes.send(0, 'new');
    await expect(waiting).rejects.toBeInstanceOf(PushOutOfOrderError);
    await flushPromises();
    expect(pushes.started).toEqual(['old/0']);

    pushes.finish(0, 'old');
    await expect(running).resolves.toBe(0);
    await flushPromises();
    expect(pushes.started).toEqual(['old/0', 'new/0']);
    pushes.finish(0, 'new');
    await expect(replacement).resolves.toBe(0);
  });

  it('refuses a push whose predecessor does not arrive in time, and a repeated sequence number', async () => {
    const pushes = new Pushes(new PushSequencer(20));
    await expect(pushes.send(1)).rejects.toThrow('waited 20 ms for push 0');
    const first = pushes.send(0);
    pushes.finish(0);
    await first;
    await expect(pushes.send(0)).rejects.toThrow('was received before');
  });
});
