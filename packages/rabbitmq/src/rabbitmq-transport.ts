import { MmmqTransport, TransportListener, TransportPublisher, TransportSubscriber } from '@mmmq/core';
import { DeclaredTopology } from './declared-topology';
import { unsupportedPattern } from './pattern-binding';
import { RabbitMqPublisher } from './rabbitmq-publisher';
import { RabbitMqSubscriber } from './rabbitmq-subscriber';
import { queueNameTooLong } from './topology';
import { resolveRabbitMqOptions, type RabbitMqTransportOptions, type ResolvedRabbitMqOptions } from './rabbitmq-transport.options';

/**
 * MMMQ's producers and listeners on RabbitMQ quorum queues (docs/scaling.md): topics are routing keys on a durable
 * topic exchange, each consumerId a durable quorum queue, publishes are confirmed, NACKs are retried through delay
 * queues and end in a dead-letter queue with MMMQ's dead-letter headers.
 */
export class RabbitMqTransport extends MmmqTransport {
  readonly name = 'rabbitmq';
  /** The options with their defaults filled in. */
  readonly options: ResolvedRabbitMqOptions;
  private readonly declared = new DeclaredTopology();

  /** @throws InvalidRabbitMqOptionsError naming the option at fault (unknown options included) */
  constructor(options: RabbitMqTransportOptions) {
    super();
    this.options = resolveRabbitMqOptions(options);
  }

  createPublisher(): TransportPublisher {
    return new RabbitMqPublisher(this.options, this.declared);
  }

  createSubscriber(): TransportSubscriber {
    return new RabbitMqSubscriber(this.options, this.declared);
  }

  /**
   * Deletes every exchange and queue this transport's publishers and subscribers declared (dead letters included):
   * for tests and throw-away set-ups, never in production. Close the publishers and subscribers first.
   */
  deleteDeclared(): Promise<void> {
    return this.declared.deleteAll(this.options.urls[0]);
  }

  unsupported(listener: TransportListener): string[] {
    const reasons: string[] = [];
    const pattern = unsupportedPattern(listener.pattern);
    if (pattern !== undefined) reasons.push(pattern);
    const tooLong = queueNameTooLong(this.options, listener.consumerId);
    if (tooLong !== undefined) reasons.push(tooLong);
    if (listener.selector !== undefined) {
      reasons.push('selector: RabbitMQ topic exchanges route on the routing key only and cannot evaluate a header selector');
    }
    if (listener.startFrom === 'earliest') {
      reasons.push(
        "startFrom 'earliest': RabbitMQ keeps no topic history, so a new queue only receives what is published after it is bound " +
          "(leave startFrom out, or use 'latest')",
      );
    }
    if (typeof listener.startFrom === 'object') {
      // The RabbitMQ counterpart of a seek: neither exists, for the same reason.
      reasons.push(
        `startFrom ${JSON.stringify(listener.startFrom)}: RabbitMQ keeps no topic history to start at a time (nor to seek in), ` +
          "so a new queue only receives what is published after it is bound (leave startFrom out, or use 'latest')",
      );
    }
    if (listener.backlogLimit !== undefined && listener.backlogLimit.overflow !== 'reject') {
      reasons.push(
        `backlogLimit overflow '${listener.backlogLimit.overflow}': the queue needs x-overflow reject-publish for at-least-once ` +
          "dead-lettering, so only overflow 'reject' (x-max-length) is supported",
      );
    }
    if (listener.maxActiveMembers !== undefined) {
      reasons.push(
        `maxActiveMembers ${listener.maxActiveMembers}: a RabbitMQ queue gives every consumer its share (or, declared with ` +
          'x-single-active-consumer, which this transport does not do, one): it cannot keep N active members and ordered backups',
      );
    }
    if (listener.maxMembers !== undefined) {
      reasons.push(`maxMembers ${listener.maxMembers}: RabbitMQ cannot cap the consumers of a queue`);
    }
    if (listener.ordered === false) {
      reasons.push(
        'ordered: false: a RabbitMQ queue has no ordering keys, so unordered delivery could not keep per-key order ' +
          '(concurrency above 1 already handles messages at once)',
      );
    }
    return reasons;
  }
}
