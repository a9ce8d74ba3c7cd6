/**
 * What every system carries: JSON with a sequence number, the publish time (performance.now() of the bench
 * process, which both publishes and consumes) and padding up to the message size. Consumers of every
 * system parse it, as an application would.
 */
export interface BenchContent {
  seq: number;
  /** performance.now() when the message was (or, at a fixed rate, was due to be) published. */
  t: number;
  pad: string;
}

/** `{"seq":…,"t":…,"pad":""}` with typical numbers. */
const OVERHEAD = '{"seq":100000,"t":12345.678901,"pad":""}'.length;
const pads = new Map<number, string>();

export function content(seq: number, t: number, size: number): BenchContent {
  let pad = pads.get(size);
  if (pad === undefined) {
    pad = 'x'.repeat(Math.max(0, size - OVERHEAD));
    pads.set(size, pad);
  }
  return { seq, t, pad };
}

export function encode(c: BenchContent): Buffer {
  return Buffer.from(JSON.stringify(c));
}

export function decode(bytes: Buffer | string): BenchContent {
  return JSON.parse(typeof bytes === 'string' ? bytes : bytes.toString('utf8')) as BenchContent;
}
