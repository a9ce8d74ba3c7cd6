import { Injectable } from '@nestjs/common';
import type { EventLoopDemandPort } from '../storage/journal/journal-ports';

/**
 * Whether the application's code needs the event loop while a lone commit is fsync'd: the fsync then goes through
 * the thread pool, otherwise it blocks the loop, which is faster when nothing else waits (one-at-a-time publishes
 * with no listener in this process). The loop is needed while pushes are in flight, while handlers of in-process
 * listeners run, and when a committed topic has an in-process listener, which takes the message right after the
 * commit (one at 5,000 msg/s: fsyncs on the loop took 22 % of it, and the publishes' timers waited behind them).
 */
@Injectable()
export class EventLoopDemand implements EventLoopDemandPort {
  private handlersRunning = 0;
  /** In-process members by consumer id. */
  private readonly inProcess = new Map<string, number>();
  private pushesInFlight: () => number = () => 0;
  /** The consumer ids subscribed to a topic. */
  private consumersOf: (topic: string) => Iterable<string> = () => [];

  /** Where pushes in flight and each topic's consumers are counted: the subscription container, once it exists. */
  watch(pushesInFlight: () => number, consumersOf: (topic: string) => Iterable<string>): void {
    this.pushesInFlight = pushesInFlight;
    this.consumersOf = consumersOf;
  }

  /** A commit of `topics` alone: whether its fsync must leave the event loop to the application. */
  needed(topics: readonly string[]): boolean {
    if (this.handlersRunning > 0 || this.pushesInFlight() > 0) return true;
    if (this.inProcess.size === 0) return false;
    for (const topic of topics) for (const consumerId of this.consumersOf(topic)) if (this.inProcess.has(consumerId)) return true;
    return false;
  }

  handlerStarted(): void {
    this.handlersRunning++;
  }

  handlerEnded(): void {
    this.handlersRunning--;
  }

  memberJoined(consumerId: string): void {
    this.inProcess.set(consumerId, (this.inProcess.get(consumerId) ?? 0) + 1);
  }

  memberLeft(consumerId: string): void {
    const members = (this.inProcess.get(consumerId) ?? 1) - 1;
    if (members > 0) this.inProcess.set(consumerId, members);
    else this.inProcess.delete(consumerId);
  }
}
