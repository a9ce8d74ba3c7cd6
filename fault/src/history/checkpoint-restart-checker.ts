import type { Delivery } from '../consumer/recording-consumer';

/** A checkpoint damaged while its topic ended at `tail`; `warns`: the broker must say so. */
export interface DamagedCheckpoint {
  tail: number;
  warns: boolean;
}

/**
 * A damaged checkpoint restarts its consumer at offset 0 (redeliver, never skip): after the restart (epoch 1) the
 * consumer must get every offset below the tail of the damage time again — its first epoch got them all, so a
 * restart anywhere else would skip them — and, when `warns`, the restarted broker's output must hold a WARN line
 * naming the checkpoint, the topic and the consumer. Problems found are appended to `problems`.
 */
export function checkCheckpointRestart(
  topic: string,
  consumerId: string,
  damaged: DamagedCheckpoint,
  deliveries: readonly Delivery[],
  brokerOutput: string,
  problems: string[],
): { notRestarted: number; unreported: number } {
  const again = new Set(deliveries.filter((d) => d.topic === topic && d.epoch === 1).map((d) => d.offset));
  let notRestarted = 0;
  for (let offset = 0; offset < damaged.tail; offset++) if (!again.has(offset)) notRestarted++;
  if (notRestarted > 0) {
    problems.push(
      `${topic}: ${notRestarted} of offsets 0..${damaged.tail - 1} were not redelivered to ${consumerId}: its damaged checkpoint did not restart at 0`,
    );
  }
  const warned = brokerOutput
    .split('\n')
    .some((line) => /WARN/.test(line) && /checkpoint/i.test(line) && line.includes(topic) && line.includes(consumerId));
  const unreported = damaged.warns && !warned ? 1 : 0;
  if (unreported) problems.push(`${topic}: the broker restarted without a warning naming the damaged checkpoint of ${consumerId}`);
  return { notRestarted, unreported };
}
