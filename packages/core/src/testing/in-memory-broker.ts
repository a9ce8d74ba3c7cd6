import { randomUUID } from 'node:crypto';
import { Acknowledgement, ConsumerAcknowledgement } from '../acknowledgement';
import { assertDeliveryMode, DeliveryMode } from '../delivery-mode';
import { InvalidMessageError } from '../errors/invalid-message-error';
import { InvalidTopicError } from '../errors/invalid-topic-error';
import { assertHeaders, assertMessageId, MessageHeaders } from '../message';
import { assertMessageProperties, MessageProperties } from '../message-properties';
import { refuseScheduled } from '../errors/scheduled-messages-unsupported-error';
import { Topic } from '../topic';
import { TopicPattern } from '../topic-pattern';
import { DeliveryRequest, PublishedMessage } from '../wire';

/** NACKed deliveries are retried this many more times before they become dead letters, as on the real broker. */
export const IN_MEMORY_MAX_NACK_RETRIES = 3;

export interface InMemoryPublishRequest extends MessageProperties {
  topic: string;
  content: unknown;
  id?: string;
  headers?: MessageHeaders;
  /** Default `persistent`: this broker has no topic defaults. */
  deliveryMode?: DeliveryMode;
}

/** A message held by the in-memory broker. */
export interface InMemoryMessage {
  id: string;
  topic: string;
  offset: number;
  content: unknown;
  headers: MessageHeaders;
  publishedAt: number;
  /** Epoch ms after which it is not delivered (from `ttlMs` or `expiresAt`); absent: never expires. */
  expiresAt?: number;
  /** Passed on to the handler; this broker delivers in offset order whatever the priority. */
  priority?: number;
}

export interface InMemoryDeadLetter extends InMemoryMessage {
  consumerId: string;
  /**
   * `NACK` when retries ran out, `REJECTED` when the consumer said retrying cannot help, `EXPIRED` when its
   * `expiresAt` passed before a delivery (always dead-lettered: there are no topic policies here).
   */
  reason: 'NACK' | 'REJECTED' | 'EXPIRED';
  attempts: number;
  lastError: string;
}

/**
 * What a handler answers when its consumer did not take the delivery (it is stopping): the attempt does not count,
 * that handler leaves its subscription, and the message waits for the next member.
 */
export const NOT_TAKEN = Symbol('the consumer did not take the delivery');

export type InMemoryHandler = (delivery: DeliveryRequest) => Promise<ConsumerAcknowledgement | typeof NOT_TAKEN>;

/** A consumer id's subscription: its position per topic outlives its members, as a dispatcher's checkpoint does. */
interface InMemorySubscription {
  pattern: TopicPattern;
  /** Competing handlers, taking turns; none: the messages wait. */
  members: InMemoryHandler[];
  /** Member whose turn is next. */
  turn: number;
  /** Next offset to deliver, per topic. */
  positions: Map<string, number>;
}

/**
 * A broker in memory for tests: the same delivery rules as the real one (in order per topic and consumer,
 * one at a time, NACK retries, dead letters, `retry: false`, expiry), no HTTP and no disk. Unlike the real one it
 * ignores priority (offset order, as an exclusive dispatcher) and has no topic default time to live. Content goes through
 * JSON on the way in and out, as on the wire, so a test catches content that would not survive it.
 */
export class InMemoryBroker {
  private readonly topics = new Map<string, InMemoryMessage[]>();
  private readonly subscriptions = new Map<string, InMemorySubscription>();
  private readonly dead: InMemoryDeadLetter[] = [];
  private readonly running = new Map<string, Promise<void>>();

  constructor(private readonly maxNackRetries = IN_MEMORY_MAX_NACK_RETRIES) {}

  /** Stores the message and schedules its delivery; returns where it was stored. */
  publish(request: InMemoryPublishRequest): PublishedMessage {
    const [published] = this.publishBatch([request]);
    return published;
  }

  /**
   * Stores all messages, whatever topics they name, or, if one is invalid, none: one commit, as on the real
   * broker. Every message is validated before any is stored, and subscribers see the batch only once all of it is
   * stored, with one `publishedAt`. Each topic's messages get consecutive offsets, in request order.
   */
  publishBatch(requests: readonly InMemoryPublishRequest[]): PublishedMessage[] {
    const publishedAt = Date.now();
    const messages = requests.map((request) => this.validate(request, publishedAt));
    // As on the real broker: a batch is persistent if any of its messages is, and only then acknowledged with offsets.
    const persistent = requests.some((request) => (request.deliveryMode ?? 'persistent') === 'persistent');
    const published = messages.map((message): PublishedMessage => {
      const log = this.topics.get(message.topic) ?? [];
      this.topics.set(message.topic, log);
      const stored = { ...message, offset: log.length };
      log.push(stored);
      const { id, topic } = stored;
      return persistent ? { id, topic, offset: stored.offset, deliveryMode: 'persistent' } : { id, topic, deliveryMode: 'nonPersistent' };
    });
    this.schedule();
    return published;
  }

  /**
   * Adds `handler` as a member of `consumerId`'s subscription, which delivers every matching topic from its first
   * message: members of one consumer id compete (each message goes to one of them, in turns), and the subscription
   * keeps its positions while it has no member. A new `pattern` replaces the subscription's. Returns the function
   * that takes the member out again.
   */
  subscribe(consumerId: string, pattern: string, handler: InMemoryHandler): () => void {
    const subscription: InMemorySubscription = this.subscriptions.get(consumerId) ?? {
      pattern: new TopicPattern(pattern),
      members: [],
      turn: 0,
      positions: new Map(),
    };
    subscription.pattern = new TopicPattern(pattern);
    subscription.members.push(handler);
    this.subscriptions.set(consumerId, subscription);
    this.schedule();
    return () => leave(subscription, handler);
  }

  /** Every message published (to `topic`, if given), in publish order per topic. */
  published(topic?: string): InMemoryMessage[] {
    const logs = topic === undefined ? [...this.topics.values()] : [this.topics.get(topic) ?? []];
    return logs.flat().map((message) => ({ ...message, content: copy(message.content) }));
  }

  deadLetters(consumerId?: string): InMemoryDeadLetter[] {
    return this.dead.filter((letter) => consumerId === undefined || letter.consumerId === consumerId);
  }

  /** Resolves once every published message has been handled (or dead-lettered) by every matching consumer. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running.values());
  }

  /** Forgets every message and dead letter; subscriptions stay and start over from offset 0. */
  reset(): void {
    this.topics.clear();
    this.dead.length = 0;
    for (const subscription of this.subscriptions.values()) subscription.positions.clear();
  }

  private validate(request: InMemoryPublishRequest, publishedAt: number): Omit<InMemoryMessage, 'offset'> {
    const topic = new Topic(request.topic);
    if (topic.isReserved) throw new InvalidTopicError(`Topic ${topic.name} is reserved for the broker`);
    if (request.content === undefined) throw new InvalidMessageError('content is missing');
    if (request.deliveryMode !== undefined) assertDeliveryMode(request.deliveryMode);
    const { ttlMs, expiresAt, priority, ...schedule } = assertMessageProperties(request);
    refuseScheduled(schedule, 'in-memory test broker', publishedAt);
    const expiry = expiresAt ?? (ttlMs === undefined ? undefined : publishedAt + ttlMs);
    return {
      id: request.id === undefined ? randomUUID() : assertMessageId(request.id),
      topic: topic.name,
      content: copy(request.content),
      headers: request.headers === undefined ? {} : { ...assertHeaders(request.headers) },
      publishedAt,
      ...(expiry === undefined ? {} : { expiresAt: expiry }),
      ...(priority === undefined ? {} : { priority }),
    };
  }

  private schedule(): void {
    for (const [consumerId, subscription] of this.subscriptions) {
      for (const [topic, log] of this.topics) {
        const key = `${consumerId}\u0000${topic}`;
        if (this.running.has(key) || subscription.members.length === 0 || !subscription.pattern.matches(topic)) continue;
        if ((subscription.positions.get(topic) ?? 0) >= log.length) continue;
        this.running.set(
          key,
          this.deliverAll(consumerId, subscription, topic).finally(() => {
            this.running.delete(key);
            // A member that joined while the last one was leaving finds the rest waiting.
            if (subscription.members.length > 0) this.schedule();
          }),
        );
      }
    }
  }

  private async deliverAll(consumerId: string, subscription: InMemorySubscription, topic: string): Promise<void> {
    // Publishing returns before any handler runs, as with a real broker.
    await Promise.resolve();
    const log = this.topics.get(topic) ?? [];
    for (let offset = subscription.positions.get(topic) ?? 0; offset < log.length; offset++) {
      // Without a member the message waits: the next member to subscribe starts here.
      if (!(await this.deliver(consumerId, subscription, log[offset]))) return;
      subscription.positions.set(topic, offset + 1);
    }
  }

  /** False when the subscription ran out of members before the message was settled. */
  private async deliver(consumerId: string, subscription: InMemorySubscription, message: InMemoryMessage): Promise<boolean> {
    let lastError = '';
    for (let attempt = 1; attempt <= this.maxNackRetries + 1; attempt++) {
      const handler = nextMember(subscription);
      if (handler === undefined) return false;
      if (message.expiresAt !== undefined && message.expiresAt <= Date.now()) {
        const lastError = `expired at ${new Date(message.expiresAt).toISOString()}`;
        this.dead.push({ ...message, consumerId, reason: 'EXPIRED', attempts: attempt - 1, lastError });
        return true;
      }
      const reply = await handler({
        id: message.id,
        topic: message.topic,
        content: copy(message.content),
        headers: { ...message.headers },
        offset: message.offset,
        deliveryCount: attempt,
        redelivered: attempt > 1,
        publishedAt: message.publishedAt,
        ...(message.expiresAt === undefined ? {} : { expiresAt: message.expiresAt }),
        ...(message.priority === undefined ? {} : { priority: message.priority }),
      }).catch((error: unknown): ConsumerAcknowledgement => ({
        acknowledgement: Acknowledgement.NACK,
        message: error instanceof Error ? error.message : String(error),
      }));
      if (reply === NOT_TAKEN) {
        leave(subscription, handler);
        attempt--;
        continue;
      }
      if (reply.acknowledgement === Acknowledgement.ACK) return true;
      lastError = reply.message ?? 'NACK without a message';
      if (reply.retry === false) {
        this.dead.push({ ...message, consumerId, reason: 'REJECTED', attempts: attempt, lastError });
        return true;
      }
    }
    this.dead.push({ ...message, consumerId, reason: 'NACK', attempts: this.maxNackRetries + 1, lastError });
    return true;
  }
}

/** The member whose turn it is, or undefined when there is none. */
function nextMember(subscription: InMemorySubscription): InMemoryHandler | undefined {
  const { members } = subscription;
  if (members.length === 0) return undefined;
  subscription.turn = (subscription.turn + 1) % members.length;
  return members[subscription.turn];
}

function leave(subscription: InMemorySubscription, handler: InMemoryHandler): void {
  const at = subscription.members.indexOf(handler);
  if (at >= 0) subscription.members.splice(at, 1);
}

/** What a receiver gets after the wire: a fresh JSON copy. */
function copy(content: unknown): unknown {
  const text = JSON.stringify(content);
  if (text === undefined) throw new InvalidMessageError('content must be a JSON value');
  return JSON.parse(text);
}
