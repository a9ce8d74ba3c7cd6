import { Injectable, Logger } from '@nestjs/common';
import { FRAME_HEADER_BYTES } from '../storage/entry-frame';
import { TopicQueue } from '../storage/topic-queue';
import { TopicQueueContainer } from '../storage/topic-queue-container';
import { ResolvedTopicPolicy } from '../topics/topic-policy.options';
import { TopicPolicies } from '../topics/topic-policies';
import { describeRemoved, RetentionService } from './retention.service';
import { PublishExceedsTopicLimitError, TopicLimitExceededError, TopicLimitName } from './topic-limit.errors';

type Limits = ResolvedTopicPolicy['limits'];

/** Messages and bytes of publishes admitted and not committed yet. */
interface InFlight {
  messages: number;
  bytes: number;
}

const NOTHING_TO_RELEASE = () => undefined;

/**
 * Keeps every topic within `topics…limits`: messages are `tailOffset − startOffset`, bytes the segment data (frames
 * included); publishes admitted and not yet committed count too, so concurrent publishes cannot pass a limit
 * together. Over a limit, `reject` refuses the publish (429) and starts a retention check; `dropOldest` deletes
 * the oldest whole segments first (subscriptions skip them, as retention's `delete` does).
 */
@Injectable()
export class TopicLimits {
  private readonly logger = new Logger(TopicLimits.name);
  private readonly inFlight = new Map<TopicQueue, InFlight>();

  constructor(
    private readonly policies: TopicPolicies,
    private readonly queues: TopicQueueContainer,
    private readonly retention: RetentionService,
  ) {}

  /**
   * Admits `payloads` to `queue` and counts them in flight until the returned function is called (once their commit
   * is settled, either way).
   *
   * @throws TopicLimitExceededError when they do not fit
   * @throws PublishExceedsTopicLimitError when they could never fit
   */
  async admit(queue: TopicQueue, payloads: readonly Buffer[]): Promise<() => void> {
    const { limits } = this.policies.of(queue.name);
    if (limits.maxBytes === null && limits.maxMessages === null) return NOTHING_TO_RELEASE;
    const asked: InFlight = { messages: payloads.length, bytes: 0 };
    for (const payload of payloads) asked.bytes += FRAME_HEADER_BYTES + payload.length;
    if (limits.maxMessages !== null && asked.messages > limits.maxMessages) {
      throw new PublishExceedsTopicLimitError(queue.name, 'maxMessages', limits.maxMessages, asked.messages);
    }
    if (limits.maxBytes !== null && asked.bytes > limits.maxBytes) {
      throw new PublishExceedsTopicLimitError(queue.name, 'maxBytes', limits.maxBytes, asked.bytes);
    }
    if (limits.overflow === 'dropOldest' && this.excess(queue, limits, asked)) await this.dropOldest(queue, limits, asked);
    const excess = this.excess(queue, limits, asked);
    if (excess) {
      void this.retention.request(queue);
      throw new TopicLimitExceededError(queue.name, excess.limit, excess.value, excess.held);
    }
    const flight = this.inFlight.get(queue) ?? { messages: 0, bytes: 0 };
    flight.messages += asked.messages;
    flight.bytes += asked.bytes;
    this.inFlight.set(queue, flight);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      flight.messages -= asked.messages;
      flight.bytes -= asked.bytes;
      if (flight.messages === 0) this.inFlight.delete(queue);
    };
  }

  /** The limit `asked` would pass, with what the topic holds (in flight included); undefined when it fits. */
  private excess(queue: TopicQueue, limits: Limits, asked: InFlight): { limit: TopicLimitName; value: number; held: number } | undefined {
    const flight = this.inFlight.get(queue);
    const messages = queue.tailOffset - queue.startOffset + (flight?.messages ?? 0);
    if (limits.maxMessages !== null && messages + asked.messages > limits.maxMessages) {
      return { limit: 'maxMessages', value: limits.maxMessages, held: messages };
    }
    const bytes = queue.byteSize + (flight?.bytes ?? 0);
    if (limits.maxBytes !== null && bytes + asked.bytes > limits.maxBytes)
      return { limit: 'maxBytes', value: limits.maxBytes, held: bytes };
    return undefined;
  }

  /**
   * Deletes oldest segments until `asked` fits. Segments the journal may still replay into are not deleted; when
   * those are in the way, one flush makes them deletable. The tail segment is never deleted.
   */
  private async dropOldest(queue: TopicQueue, limits: Limits, asked: InFlight): Promise<void> {
    for (let flushed = false; ; flushed = true) {
      const removed = await queue.removeOldest(() => this.excess(queue, limits, asked) !== undefined);
      if (removed.length > 0) {
        this.logger.log(
          `Topic ${queue.name}: to stay within its limits (overflow: dropOldest) ${describeRemoved(removed, queue.startOffset)}`,
        );
      }
      if (flushed || !this.excess(queue, limits, asked) || queue.chain.segmentCount < 2) return;
      try {
        await this.queues.journal.flush();
      } catch {
        return;
      }
    }
  }
}
