import { Injectable } from '@nestjs/common';

/**
 * Holds the publishes to a topic the broker just opened until its subscriptions are attached. Subscriptions attach to
 * a new topic asynchronously (their checkpoint files are created, one dispatcher change at a time); a publish to it
 * committed before that would be acknowledged while a fetch (or a push member) could not see it yet. An ACKed message
 * must be visible to every matching subscription when the ACK is sent, so the first publishes of a topic wait (before
 * they are committed) for the attach; the publishes to the other topics pay one lookup in an empty map.
 *
 * Only producers' publishes wait: a dead letter to a new `__dlq.*` topic must not, since a dispatcher change holding
 * the attach back may itself be waiting for that dead letter (a subscription stopping waits for its dead letters).
 */
@Injectable()
export class AttachGate {
  private readonly attaching = new Map<string, Promise<void>>();

  /** Publishes to `topic` wait until `attached` settles (fulfilled or not: a failed attach is logged where it runs). */
  hold(topic: string, attached: Promise<unknown>): void {
    const opened = attached.then(
      () => undefined,
      () => undefined,
    );
    this.attaching.set(topic, opened);
    void opened.then(() => {
      if (this.attaching.get(topic) === opened) this.attaching.delete(topic);
    });
  }

  /** Resolves once `topic`'s subscriptions are attached; undefined (nothing to wait for) for a topic attached already. */
  whenAttached(topic: string): Promise<void> | undefined {
    return this.attaching.get(topic);
  }
}
