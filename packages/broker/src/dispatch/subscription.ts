import { anySignal, Host } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { CheckpointFile } from '../storage/checkpoint-file';
import { TopicQueue } from '../storage/topic-queue';
import { backoffDelay, sleep } from '@mmmq/core';
import { BrokerEvents } from '../events/broker-events';
import { DeadLetterWriter } from './dead-letter-writer';
import { encodeDelivery } from './delivery-body';
import { ResolvedDeliveryOptions } from './delivery.options';
import { DispatcherDefinition } from './dispatcher-definition';
import { DeliveryLedger, Unsettled } from './ledger/delivery-ledger';
import { DueTimer } from './ledger/due-timer';
import { leaseToken } from './ledger/lease-token';
import { LogReader, LogReaderHost } from './ledger/log-reader';
import { Notifier } from './ledger/notifier';
import { Slot, SlotState } from './ledger/slot';
import { MemberRoster } from './member-roster';
import { PushMember, PushMemberState } from './push-member';
import { PushSender } from './push-sender';
import { redriveTopicOf } from './reserved-topics';
import { SubscriptionStateWriter } from './subscription-state-writer';
import { SubscriptionStats } from './subscription-stats';

/** What a subscription needs besides its topic, consumer and checkpoint. */
export interface DeliveryContext {
  sender: PushSender;
  deadLetters: DeadLetterWriter;
  options: ResolvedDeliveryOptions;
  /** Where push members report stalls. */
  events: BrokerEvents;
}

/** The delivery mark is reserved at least this far ahead, so it is written once per this many new deliveries. */
export const DELIVERY_MARK_RESERVE = 100;
/**
 * Push deliveries a crash may redeliver at most (leased, or settled and not durable yet), unless the windows in
 * flight hold more: settlements are journaled in the background, shared with everything else of that moment.
 */
export const SETTLED_NOT_DURABLE_MAX = 1000;
/** `unauthorized` while a push member answers 401 (it refuses the pushes' signature). */
export type SubscriptionState = PushMemberState;

/**
 * One (topic, consumer) pair: the consumer's durable subscription to the topic, shared by all its members — push
 * hosts and pull clients. The {@link DeliveryLedger} holds the state: a cursor, the messages read past it, leases
 * with deadlines (monotonic clock), delivery counts; the {@link SubscriptionStateWriter} journals it in the
 * background. Members take messages lowest offset first, so a single push member with one push in flight gets them
 * in order. Every delivery that may have reached a handler counts; past `maxDeliveries` (or the NACK retries, or
 * on `terminate`) a message is dead-lettered with its history, and the cursor passes it only once that is durable.
 */
export class Subscription implements LogReaderHost {
  private readonly logger = new Logger(Subscription.name);
  readonly stats = new SubscriptionStats();
  private readonly ledger: DeliveryLedger;
  private readonly writer: SubscriptionStateWriter;
  private readonly changes = new Notifier();
  private readonly pushMembers = new Map<string, PushMember>();
  private readonly roster: MemberRoster;
  private readonly stopSignal = new AbortController();
  private readonly reader: LogReader;
  private readonly deadLettering = new Set<Promise<unknown>>();
  private readonly timer = new DueTimer(() => this.onDue());
  private stopRequested?: Promise<void>;

  constructor(
    readonly queue: TopicQueue,
    private currentDefinition: DispatcherDefinition,
    checkpoint: CheckpointFile,
    private readonly context: DeliveryContext,
  ) {
    const { maxDeliveries } = currentDefinition;
    this.ledger = new DeliveryLedger(checkpoint.snapshot, { maxDeliveries, maxNackRetries: context.options.maxNackRetries });
    // A redrive hands dead letters back as asked: they were selected when first delivered.
    const selector = queue.topic.name === redriveTopicOf(currentDefinition.consumerId) ? undefined : currentDefinition.selector;
    this.reader = new LogReader(queue, this.ledger, this, selector);
    this.writer = new SubscriptionStateWriter(this.ledger, checkpoint, (file, ledger) => this.writeState(file, ledger));
    this.roster = new MemberRoster(this.label(), currentDefinition.ackTimeoutMs);
    this.startMembers(currentDefinition, new Map(currentDefinition.hosts.map((host) => [host.toUrl(), host])));
  }

  get definition(): DispatcherDefinition {
    return this.currentDefinition;
  }

  get consumerId(): string {
    return this.currentDefinition.consumerId;
  }

  /** The cursor: every message before it was ACKed or dead-lettered. */
  get position(): number {
    return this.ledger.cursor;
  }

  get leased(): number {
    return this.ledger.leased;
  }

  get state(): SubscriptionState {
    return [...this.pushMembers.values()].some((member) => member.state === 'unauthorized') ? 'unauthorized' : 'active';
  }

  /** For an exclusive dispatcher: the member receiving now. */
  get activeMember(): string | undefined {
    return this.currentDefinition.exclusive ? this.roster.activeMember : undefined;
  }

  /**
   * Starts, stops or keeps push members to match the definition's hosts (a host joined or left). Members that leave
   * are stopped first, so what they held is back (lowest offsets first) before a new member takes anything.
   */
  async setHosts(definition: DispatcherDefinition): Promise<void> {
    this.currentDefinition = definition;
    const wanted = new Map(definition.hosts.map((host) => [host.toUrl(), host]));
    const leaving = [...this.pushMembers].filter(([id]) => !wanted.has(id));
    for (const [id] of leaving) {
      this.pushMembers.delete(id);
      this.roster.leave(id);
    }
    await Promise.all(leaving.map(([, member]) => member.stop(0)));
    this.startMembers(definition, wanted);
  }

  private startMembers(definition: DispatcherDefinition, hosts: Map<string, Host>): void {
    for (const [id, host] of hosts) {
      if (this.pushMembers.has(id)) continue;
      if (definition.exclusive) this.roster.join(id, true, performance.now());
      this.pushMembers.set(
        id,
        new PushMember(this, { consumerId: definition.consumerId, host, signingSecret: definition.signingSecret }, this.context),
      );
    }
    for (const member of this.pushMembers.values()) {
      member.retarget(definition);
      if (!this.stopping) member.signal();
    }
  }

  /** New messages, a release, a delay over: wakes the push members and waiting fetches. Cheap; call it on every commit. */
  signal(): void {
    if (this.stopping) return;
    for (const member of this.pushMembers.values()) member.signal();
    this.changes.notify();
  }

  /** Resolves at the next change, after `ms`, or when `signal` aborts. */
  async whenChanged(ms: number, signal?: AbortSignal): Promise<void> {
    if (!signal) return this.changes.wait(ms, this.stopSignal.signal);
    const cancelled = anySignal([signal, this.stopSignal.signal]);
    try {
      await this.changes.wait(ms, cancelled.signal);
    } finally {
      cancelled.dispose();
    }
  }

  /**
   * The consumer registered again: its push members (those of `hosts`, when given) leave the `unauthorized` state
   * and end their backoff, so delivery is tried at once.
   */
  retryNow(hosts?: readonly Host[]): void {
    const wanted = hosts && new Set(hosts.map((host) => host.toUrl()));
    for (const [id, member] of this.pushMembers) if (!wanted || wanted.has(id)) member.retryNow();
  }

  /**
   * Leases up to `max` messages (and `maxBytes`, at least one) to `member` for `leaseMs` (Infinity: a push, whose
   * reply timeout governs). Empty when nothing is available, or the member is a backup of an exclusive consumer.
   */
  async acquire(member: string, max: number, maxBytes: number, leaseMs: number): Promise<Slot[]> {
    if (this.stopping) return [];
    if (this.currentDefinition.exclusive) {
      // Only an exclusive consumer keeps a roster: anonymous pull members (one per fetch) would pile up in it.
      const now = performance.now();
      this.roster.join(member, !Number.isFinite(leaseMs), now);
      if (Number.isFinite(leaseMs)) this.roster.seen(member, now);
      if (!this.roster.mayReceive(member, now)) return [];
    }
    // A crash redelivers what is leased plus what was settled but is not durable yet: keep both within the bound.
    const undurable = this.writer.undurableSettlements;
    if (undurable > 0 && undurable + this.ledger.leased + max > this.settlementBound && !(await this.writer.durable())) return [];
    await this.reader.fill(max);
    const slots = this.ledger.take(member, max, maxBytes, performance.now(), leaseMs);
    const highest = slots.reduce((top, slot) => Math.max(top, slot.offset), -1);
    if (highest >= this.writer.durableMark) {
      // Offsets handed out must lie below the mark on disk: after a crash they count as maybe delivered.
      this.ledger.reserveMark(highest + 1 + DELIVERY_MARK_RESERVE);
      if (!(await this.writer.durable()) || this.stopping) {
        for (const slot of slots)
          this.ledger.release(slot, { outcome: 'not sent: the subscription stopped', counted: false }, performance.now());
        return [];
      }
    }
    for (const slot of slots) if (slot.deliveries > 1) this.stats.redelivered++;
    if (slots.some((slot) => slot.deliveries > 1)) this.writer.schedule();
    this.armTimer();
    return slots;
  }

  /** The delivery body (SPEC §3) of a leased message, as pushed or fetched. */
  deliveryBody(slot: Slot): Buffer {
    const topic = this.queue.topic.name;
    return encodeDelivery(slot.envelope!, slot.offset, {
      deliveryCount: slot.deliveries,
      lease: leaseToken(topic, slot.offset, slot.deliveries),
      lastAttempt: this.ledger.isLastAttempt(slot),
    });
  }

  /** The leased message at `offset` (of delivery `delivery`, when fenced). */
  leaseAt(offset: number, delivery?: number): Slot | undefined {
    return this.ledger.leaseAt(offset, delivery);
  }

  leaseOfId(id: string): Slot | undefined {
    return this.ledger.leaseOfId(id, this.queue.topic.name);
  }

  leasesOf(member: string): Slot[] {
    return this.ledger.leasesOf(member);
  }

  /** A member was heard from (a push answered, a pull client fetched or settled). */
  seen(member: string): void {
    this.roster.seen(member, performance.now());
  }

  failing(member: string): void {
    this.roster.failing(member, performance.now());
  }

  /** Settles a leased message for good — only if `delivery` (when given) is still its current one. */
  ack(slot: Slot, delivery?: number): void {
    if (slot.state !== SlotState.LEASED || (delivery !== undefined && slot.deliveries !== delivery)) return;
    this.ledger.settle(slot);
    this.stats.delivered++;
    this.writer.settled();
    this.signal();
  }

  /** A delivery ended without an ACK: available again, or dead-lettered when it had enough. */
  release(slot: Slot, how: Unsettled, delivery?: number): void {
    if (slot.state !== SlotState.LEASED || (delivery !== undefined && slot.deliveries !== delivery)) return;
    if (how.nack) this.stats.nacked++;
    const verdict = this.ledger.release(slot, how, performance.now());
    if (verdict) this.deadLetter(slot, verdict.reason, verdict.lastError);
    this.armTimer();
    this.signal();
  }

  /** Dead-letters a leased message now; resolves once that is durable (false: stopped first). */
  terminate(slot: Slot, reason: 'REJECTED' | 'TERMINATED', message: string): Promise<boolean> {
    if (!this.ledger.terminate(slot, reason)) return Promise.resolve(false);
    return this.deadLetter(slot, reason, message);
  }

  extend(slot: Slot, leaseMs: number): boolean {
    const extended = this.ledger.extend(slot, performance.now(), leaseMs);
    this.armTimer();
    return extended;
  }

  /** Resolves once every settlement made so far is durable; false if the subscription stopped first. */
  durable(): Promise<boolean> {
    return this.writer.durable();
  }

  /**
   * What a crash may redeliver of push deliveries at most, leased or settled without being durable yet:
   * {@link SETTLED_NOT_DURABLE_MAX} messages, or `maxInFlight + 1` windows per host if that is more. Acquiring waits
   * for the state write beyond it. (Pull settlements are answered once durable.)
   */
  private get settlementBound(): number {
    const { batchSize, maxInFlight, hosts } = this.currentDefinition;
    return Math.max(SETTLED_NOT_DURABLE_MAX, Math.max(1, hosts.length) * batchSize * (maxInFlight + 1));
  }

  skipCorrupt(offset: number, error: Error): void {
    this.stats.corruptSkipped++;
    this.logger.error(`${this.label()}: skipped corrupt entry at offset ${offset}: ${error.message}`);
    this.writer.settled();
  }

  skipDeleted(start: number): void {
    const skipped = this.ledger.skipTo(start);
    if (skipped === 0) return;
    this.stats.retentionSkipped += skipped;
    this.logger.warn(
      `${this.label()}: retention deleted offsets below ${start} before they were consumed; skipped ${skipped} messages ` +
        `(resuming at ${start}, the oldest retained)`,
    );
    this.writer.schedule();
  }

  skipFiltered(count: number): void {
    this.stats.filtered += count;
    // Not `settled()`: a crash does not redeliver a skipped message (it is skipped again), so no bound is needed.
    this.writer.schedule();
  }

  private deadLetter(slot: Slot, reason: string, lastError: string): Promise<boolean> {
    const work = (async () => {
      const letter = {
        envelope: slot.envelope!,
        consumerId: this.consumerId,
        offset: slot.offset,
        attempts: slot.deliveries,
        reason,
        lastError,
        history: slot.history,
      };
      for (let failures = 1; ; failures++) {
        try {
          const at = await this.context.deadLetters.write(letter);
          this.stats.deadLettered++;
          this.logger.warn(`${this.label()}: offset ${slot.offset} ${reason} after ${slot.deliveries} deliveries; dead-lettered at ${at}`);
          this.ledger.settle(slot);
          this.writer.settled();
          this.signal();
          return true;
        } catch (error) {
          if (this.stopping) return false;
          await this.backoff(failures, `dead-lettering offset ${slot.offset} failed`, error);
        }
      }
    })();
    this.deadLettering.add(work);
    void work.finally(() => this.deadLettering.delete(work));
    return work;
  }

  /** Writes the ledger's state (journaled); a failure is retried, never skipped. False: stopped first. */
  private async writeState(file: CheckpointFile, ledger: DeliveryLedger): Promise<boolean> {
    const snapshot = ledger.snapshot();
    for (let failures = 1; ; failures++) {
      try {
        await file.write(snapshot);
        return true;
      } catch (error) {
        if (this.stopping) return false;
        await this.backoff(failures, `writing the checkpoint ${snapshot.cursor} failed`, error);
      }
    }
  }

  private armTimer(): void {
    if (!this.stopping) this.timer.arm(this.ledger.nextDue());
  }

  /** Leases ended: their messages come back (or are dead-lettered); delays ended: available again. */
  private onDue(): void {
    const now = performance.now();
    for (const slot of this.ledger.expired(now)) {
      this.stats.expired++;
      const verdict = this.ledger.release(slot, { outcome: 'LEASE_EXPIRED', counted: true }, now);
      if (verdict) this.deadLetter(slot, verdict.reason, verdict.lastError);
    }
    this.ledger.promote(now);
    this.armTimer();
    this.signal();
  }

  /** Waits before a retry of a storage operation, ending early when the subscription stops. */
  async backoff(failures: number, what: string, error: unknown): Promise<void> {
    const wait = backoffDelay(failures, this.context.options.backoff);
    this.stats.recordFailure((error as Error).message ?? String(error));
    this.logger.warn(`${this.label()}: ${what} (${(error as Error).message}); retry ${failures} in ${wait} ms`);
    await sleep(wait, this.stopSignal.signal);
  }

  /**
   * Stops for good: no new delivery starts, waits end at once, in-flight pushes get `graceMs` to finish (their
   * settlements are then written) before they are abandoned. Resolves when nothing runs any more. Idempotent.
   */
  stop(graceMs = 0): Promise<void> {
    this.stopRequested ??= (async () => {
      await Promise.allSettled([...this.pushMembers.values()].map((member) => member.stop(graceMs)));
      this.stopSignal.abort();
      this.changes.notify();
      this.timer.stop();
      await Promise.allSettled([...this.deadLettering]);
      await this.writer.durable();
    })();
    return this.stopRequested;
  }

  get stopping(): boolean {
    return this.stopRequested !== undefined;
  }

  label(): string {
    return `${this.queue.topic.name} → ${this.consumerId}`;
  }
}
