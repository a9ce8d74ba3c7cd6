import { BrokerRequestError } from '../../src';
import { AckBatcher, DUPS_OK_ACK_BATCH, DUPS_OK_ACK_LINGER_MS, MAX_ACKS_PER_REQUEST } from '../../src/pull/ack-batcher';
import type { SettleResult } from '../../src/pull/pull-client';

/** Records each request; answers once `release` is called for it (or at once with `auto`). */
class Sender {
  readonly requests: string[][] = [];
  private readonly pending: Array<(result: SettleResult) => void> = [];
  constructor(private readonly lost: string[] = []) {}
  readonly send = (leases: string[]): Promise<SettleResult> => {
    this.requests.push(leases);
    return new Promise((resolve) => this.pending.push(resolve));
  };
  answer(): void {
    const leases = this.requests[this.requests.length - this.pending.length];
    this.pending.shift()?.({ settled: leases.length, lost: leases.filter((lease) => this.lost.includes(lease)) });
  }
}

const nextTick = () => new Promise((resolve) => setImmediate(resolve));

describe('AckBatcher', () => {
  it('with no linger sends at once, and what arrives while a request is in flight goes together in the next', async () => {
    const sender = new Sender();
    const batcher = new AckBatcher(sender.send, { lingerMs: 0, maxBatch: MAX_ACKS_PER_REQUEST });
    const first = batcher.add('a');
    await nextTick();
    const later = ['b', 'c', 'd'].map((lease) => batcher.add(lease));
    await nextTick();
    expect(sender.requests).toEqual([['a']]);
    sender.answer();
    expect(await first).toBe(true);
    await nextTick();
    expect(sender.requests).toEqual([['a'], ['b', 'c', 'd']]);
    sender.answer();
    expect(await Promise.all(later)).toEqual([true, true, true]);
  });

  it('resolves false for the leases the broker reports lost', async () => {
    const sender = new Sender(['b']);
    const batcher = new AckBatcher(sender.send, { lingerMs: 0, maxBatch: 10 });
    const results = Promise.all(['a', 'b'].map((lease) => batcher.add(lease)));
    await nextTick();
    sender.answer();
    expect(await results).toEqual([true, false]);
  });

  it('dupsOk: waits up to the linger, or sends as soon as a batch is full', async () => {
    jest.useFakeTimers();
    try {
      const sender = new Sender();
      const batcher = new AckBatcher(sender.send, { lingerMs: DUPS_OK_ACK_LINGER_MS, maxBatch: DUPS_OK_ACK_BATCH });
      void batcher.add('x');
      jest.advanceTimersByTime(DUPS_OK_ACK_LINGER_MS - 1);
      expect(sender.requests).toHaveLength(0);
      jest.advanceTimersByTime(1);
      expect(sender.requests).toEqual([['x']]);
      sender.answer();
      await Promise.resolve();
      await Promise.resolve();
      for (let i = 0; i < DUPS_OK_ACK_BATCH; i++) void batcher.add(`l${i}`);
      expect(sender.requests[1]).toHaveLength(DUPS_OK_ACK_BATCH);
    } finally {
      jest.useRealTimers();
    }
  });

  it('flush sends what lingers at once and waits for the answers', async () => {
    const sender = new Sender();
    const batcher = new AckBatcher(sender.send, { lingerMs: 60_000, maxBatch: 100 });
    const acked = batcher.add('a');
    let flushed = false;
    const flushing = batcher.flush().then(() => (flushed = true));
    await nextTick();
    expect(sender.requests).toEqual([['a']]);
    expect(flushed).toBe(false);
    sender.answer();
    await flushing;
    expect(await acked).toBe(true);
  });

  it('retries an unreachable broker, and gives the error to every ack after the last attempt', async () => {
    let attempts = 0;
    const unreachable = () => {
      attempts++;
      return Promise.reject(new BrokerRequestError('ECONNREFUSED', true));
    };
    const batcher = new AckBatcher(unreachable, { lingerMs: 0, maxBatch: 10 });
    await expect(batcher.add('a')).rejects.toThrow('ECONNREFUSED');
    expect(attempts).toBe(3);
  });

  it('does not retry a request the broker refused as wrong', async () => {
    let attempts = 0;
    const refused = () => {
      attempts++;
      return Promise.reject(new BrokerRequestError('HTTP 400: leases must be an array', false));
    };
    await expect(new AckBatcher(refused, { lingerMs: 0, maxBatch: 10 }).add('a')).rejects.toThrow('HTTP 400');
    expect(attempts).toBe(1);
  });
});
