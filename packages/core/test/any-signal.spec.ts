import { getEventListeners } from 'node:events';
import { anySignal } from '../src';

describe('anySignal', () => {
  it('aborts when any source aborts, with its reason, and lets go of every source', () => {
    const first = new AbortController();
    const second = new AbortController();
    const combined = anySignal([first.signal, second.signal]);
    expect(combined.signal.aborted).toBe(false);

    second.abort('stopping');
    expect(combined.signal.aborted).toBe(true);
    expect(combined.signal.reason).toBe('stopping');
    expect(getEventListeners(first.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(second.signal, 'abort')).toHaveLength(0);
  });

  it('is aborted from the start when a source already is', () => {
    const done = new AbortController();
    done.abort('gone');
    const live = new AbortController();
    const combined = anySignal([live.signal, done.signal]);
    expect(combined.signal.aborted).toBe(true);
    expect(combined.signal.reason).toBe('gone');
    expect(getEventListeners(live.signal, 'abort')).toHaveLength(0);
  });

  it('leaves nothing on a long-lived source once disposed, however many times it is combined', () => {
    const shutdown = new AbortController();
    for (let i = 0; i < 1_000; i++) {
      const request = new AbortController();
      const combined = anySignal([request.signal, shutdown.signal]);
      combined.dispose();
      combined.dispose();
    }
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });

  it('no longer aborts once disposed', () => {
    const source = new AbortController();
    const combined = anySignal([source.signal]);
    combined.dispose();
    source.abort();
    expect(combined.signal.aborted).toBe(false);
  });
});
