/**
 * One series of a {@link ConsoleHistory}: a fixed array written in a circle, one value per sample, shared head with
 * every other series of the history (the history says where). `NaN` marks a sample the series has no value for
 * (before it existed, or its first sample, which has no previous counter to make a rate from).
 */
export class SampleRing {
  /** Float32: a rate to a tenth and a lag up to 2^24 exactly, in half the memory of Float64. */
  private readonly values: Float32Array;
  /** The history's sample count when this series was last written: a series not seen in a sample is gone. */
  seenAt = 0;

  constructor(readonly capacity: number) {
    this.values = new Float32Array(capacity).fill(Number.NaN);
  }

  set(index: number, value: number): void {
    this.values[index] = value;
  }

  /**
   * The `count` newest values, oldest first, `null` where there is none (JSON has no NaN); `head` is the index the
   * newest was written at.
   */
  newest(head: number, count: number): Array<number | null> {
    const out = new Array<number | null>(count);
    for (let i = 0; i < count; i++) {
      const value = this.values[(head - count + 1 + i + this.capacity) % this.capacity];
      out[i] = Number.isNaN(value) ? null : Math.round(value * 10) / 10;
    }
    return out;
  }
}
