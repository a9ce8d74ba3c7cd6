import { anySignal, Host } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { CheckpointFile } from '../storage/checkpoint-file';
import { TopicQueue } from '../storage/topic-queue';
import { backoffDelay, sleep } from '@mmmq/core';
import { RejectingSubscription } from '../publish/backlog-guard';
import type { DeliveryContext } from './delivery-context';
import type { MemberSubscription, TerminationReason } from './member-subscription';
import { BacklogTrimmer, BacklogTrimmerHost } from './backlog-trimmer';
import { encodeDelivery } from './delivery-body';
import { DispatcherDefinition, hasRoster } from './dispatcher-definition';
import { DeliveryLedger, Unsettled } from './ledger/delivery-ledger';
import { DueTimer } from './ledger/due-timer';
import { FairShare, ShareState } from './fair-share';
import { leaseToken } from './ledger/lease-token';
import { LogReader, LogReaderHost } from './ledger/log-reader';
import { Notifier } from './ledger/notifier';
import { Slot, SlotState } from './ledger/slot';
import type { LeaseWatcher } from './ledger/lease-watcher';
import type { LeasedIds } from './leased-ids';
import { MemberRoster } from './member-roster';
import { PushMember, PushMemberState, PushMemberView } from './push-member';
import { redriveTopicOf } from './reserved-topics';
import { DeadLetterBatch, SubscriptionDeadLetters } from './subscription-dead-letters';
import { SubscriptionStateWriter } from './subscription-state-writer';
import { SubscriptionStats } from './subscription-stats';
import { SubscriptionTransactions, TransactionBatch, TransactionInput } from './subscription-transactions';
import type { CommitPart } from '../storage/journal/journal-commit';
import { StorageUnavailableError } from '../storage/storage.errors';
import type { SubscriptionSnapshot } from '../storage/subscription-snapshot';

/**
 * The delivery mark is written this far ahead of what is handed out, so takes rarely wait for it: after a crash, at
 * most this many messages never sent come back counted as delivered (after a clean stop, none: see trimMark).
 */
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
 * background. Members take messages highest priority first, then lowest offset (an exclusive dispatcher: lowest
 * offset only), so a single push member with one push in flight gets them in that order. An expired message is
 * never handed out: it is dead-lettered (`EXPIRED`) or dropped, per its topic's `expiry.whenExpired`. Every delivery that may have reached a handler counts; past `maxDeliveries` (or the NACK retries, or
 * on `terminate`) a message is dead-lettered with its history, in the same journal record as the state that passes it
 * (see {@link SubscriptionDeadLetters}): a crash leaves both or neither, never a dead letter and a redelivery.
 */
export class Subscription implements LogReaderHost, RejectingSubscription, MemberSubscription {
  private readonly logger = new Logger(Subscription.name);
  readonly stats = new SubscriptionStats();
  private readonly ledger: DeliveryLedger;
  private readonly writer: SubscriptionStateWriter;
  private readonly changes = new Notifier();
  private readonly pushMembers = new Map<string, PushMember>();
  /** The member that leased last: {@link signalPushMembers} wakes the push member after it first. */
  private lastLeasedBy?: string;
  /** Leases held per member: an exclusive consumer's new active member waits until the previous one holds none. */
  private readonly leasesByMember = new Map<string, number>();
  private readonly roster: MemberRoster;
  /** Caps what each competing member holds at an even split of what there is to deliver. */
  private readonly share = new FairShare(() => this.currentDefinition.ackTimeoutMs);
  private readonly stopSignal = new AbortController();
  private readonly reader: LogReader;
  private readonly deadLettering = new Set<Promise<unknown>>();
  private readonly timer = new DueTimer(() => this.onDue());
  private readonly transactions = new SubscriptionTransactions();
  /** Dead letters waiting for the next state write: each is journaled with the move past its message. */
  private readonly deadLetters = new SubscriptionDeadLetters();
  private stopRequested?: Promise<void>;
  /** For `dropOldest` and `deadLetter` backlog limits. */
  private readonly trimmer?: BacklogTrimmer;

  constructor(
    readonly queue: TopicQueue,
    private currentDefinition: DispatcherDefinition,
    checkpoint: CheckpointFile,
    private readonly context: DeliveryContext,
    /** The consumer's leases by message id (for settling by `{"id"}`), shared by its subscriptions. */
    private leasedIds?: LeasedIds<Subscription>,
  ) {
    const { maxDeliveries } = currentDefinition;
    // An exclusive dispatcher is the strictly ordered kind: it gets offset order whatever the priorities.
    const cancellations = context.cancellations?.of(queue);
    this.ledger = new DeliveryLedger(
      checkpoint.snapshot,
      { maxDeliveries, maxNackRetries: context.options.maxNackRetries },
      currentDefinition.exclusive,
      this.leaseWatcher(),
      cancellations,
      context.windows,
    );
    // A redrive hands dead letters back as asked: they were selected when first delivered.
    const redrive = queue.topic.name === redriveTopicOf(currentDefinition.consumerId);
    const selector = redrive ? undefined : currentDefinition.selector;
    this.reader = new LogReader(queue, this.ledger, this, selector, cancellations, context.windows);
    this.writer = new SubscriptionStateWriter(
      this.ledger,
      checkpoint,
      (file, ledger) => this.writeState(file, ledger),
      () => this.transactions.waiting || this.deadLetters.waiting,
    );
    // A takeover wakes the new active member: a backup's push loop stopped when it was refused.
    const limits = { maxActive: currentDefinition.maxActiveMembers ?? Infinity, maxMembers: currentDefinition.maxMembers ?? Infinity };
    this.roster = new MemberRoster(this.label(), currentDefinition.ackTimeoutMs, limits, () => this.signal());
    this.startMembers(currentDefinition, new Map(currentDefinition.hosts.map((host) => [host.toUrl(), host])));
    // The redrive topic holds what an operator handed back on purpose: no limit there.
    const limit = redrive ? undefined : currentDefinition.backlogLimit;
    if (limit?.overflow === 'reject') context.backlogGuard?.add(queue.topic.name, this);
    else if (limit) this.trimmer = new BacklogTrimmer(limit, this.ledger, this.trimmerHost());
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

  /** Payload bytes of the messages it holds in memory (read ahead, leased, delayed): within `memory.subscriptionWindowBytes`. */
  get heldBytes(): number {
    return this.ledger.heldBytes;
  }

  /** Scheduled messages read and not due yet. */
  get scheduled(): number {
    return this.ledger.scheduled;
  }

  /**
   * Messages of the topic not settled yet (the topic's tail minus the cursor, plus scheduled messages that fell due
   * behind it), scheduled ones not yet due left out.
   */
  get backlog(): number {
    return this.queue.tailOffset - this.ledger.cursor + this.ledger.unsettledBehind;
  }

  /** The dispatcher's `maxBacklog`; Infinity without one. */
  get maxBacklog(): number {
    return this.currentDefinition.backlogLimit?.maxBacklog ?? Infinity;
  }

  get state(): SubscriptionState {
    return [...this.pushMembers.values()].some((member) => member.state === 'unauthorized') ? 'unauthorized' : 'active';
  }

  /** The push members, each with its state and backoff. */
  get members(): PushMemberView[] {
    return [...this.pushMembers.values()].map((member) => member.view());
  }

  /** For a dispatcher with `maxActiveMembers` (or `exclusive`): the members receiving now. */
  get activeMembers(): string[] | undefined {
    return this.currentDefinition.maxActiveMembers === undefined ? undefined : this.roster.activeMembers;
  }

  /** For a dispatcher with a roster: the live members that are not push hosts (named pull members, in-process ones). */
  get otherMembers(): number {
    return hasRoster(this.currentDefinition) ? this.roster.size - this.pushMembers.size : 0;
  }

  /**
   * Starts, stops or keeps push members to match the definition's hosts (a host joined or left). Members that leave
   * are stopped first, so what they held is back (lowest offsets first) before a new member takes anything. Their
   * pushes in flight get `shutdownGraceMs` to be answered: a consumer shutting down leaves after answering what it
   * took, and answers 503 to what it did not, so cutting those pushes off would count deliveries no handler saw (or
   * redeliver messages it acknowledged).
   */
  async setHosts(definition: DispatcherDefinition): Promise<void> {
    this.currentDefinition = definition;
    const wanted = new Map(definition.hosts.map((host) => [host.toUrl(), host]));
    const leaving = [...this.pushMembers].filter(([id]) => !wanted.has(id));
    for (const [id] of leaving) {
      this.pushMembers.delete(id);
      this.roster.leave(id);
    }
    await Promise.all(leaving.map(([, member]) => member.stop(this.context.options.shutdownGraceMs)));
    this.startMembers(definition, wanted);
  }

  private startMembers(definition: DispatcherDefinition, hosts: Map<string, Host>): void {
    for (const [id, host] of hosts) {
      if (this.pushMembers.has(id)) continue;
      if (hasRoster(definition)) this.roster.join(id, true, performance.now());
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
    this.trimmer?.check();
    this.signalPushMembers();
    this.changes.notify();
  }

  /**
   * Wakes every push member, starting after the one that leased last: the first woken leases first, so a trickle of
   * messages (each leased before the next arrives) is shared among the hosts in turn, as RabbitMQ shares a queue
   * among its consumers, instead of all going to the same host.
   */
  private signalPushMembers(): void {
    if (this.pushMembers.size <= 1) {
      for (const member of this.pushMembers.values()) member.signal();
      return;
    }
    const members = [...this.pushMembers.values()];
    const first = members.findIndex((member) => member.id === this.lastLeasedBy) + 1;
    for (let i = 0; i < members.length; i++) members[(first + i) % members.length].signal();
  }

  /** Calls `listener` at every change (as {@link whenChanged} resolves), and once when it stops, until unlistened. */
  onChange(listener: () => void): () => void {
    return this.changes.listen(listener);
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
   * reply timeout governs). Empty when nothing is available, the member is a backup (`maxActiveMembers`), or it
   * holds its even split already ({@link FairShare}). `named`: false for an anonymous fetch (a member of its own).
   * @throws MaxMembersReachedError a new pull member of a consumer that has `maxMembers` members already
   */
  async acquire(member: string, max: number, maxBytes: number, leaseMs: number, named = true): Promise<Slot[]> {
    if (this.stopping) return [];
    const now = performance.now();
    const push = !Number.isFinite(leaseMs);
    if (hasRoster(this.currentDefinition)) {
      // Only a consumer with member limits keeps a roster: anonymous pull members (one per fetch) would pile up in it.
      this.roster.join(member, push, now);
      if (!push) this.roster.seen(member, now);
      if (!this.roster.mayReceive(member, now)) return [];
      // Strict order across a takeover: what the previous member still holds (a push on its way, a lease running)
      // comes back first, then the new active member takes from the lowest offset.
      if (this.currentDefinition.exclusive && this.heldByOthers(member)) return [];
    }
    if (named) {
      if (!push) this.share.seen(member, now);
      // Alone (one push host, or one named member and no host), it competes with no one: nothing to work out.
      if (this.pushMembers.size + this.share.tracked > 1) {
        max = Math.min(
          max,
          this.share.room(member, this.shareState(member, push), (other) => this.leasesByMember.has(other), now),
        );
        if (max <= 0) return [];
      }
    }
    // A crash redelivers what is leased plus what was settled but is not durable yet: keep both within the bound.
    const undurable = this.writer.undurableSettlements;
    if (undurable > 0 && undurable + this.ledger.leased + max > this.settlementBound && !(await this.writer.durable())) return [];
    await this.reader.fill(max);
    const handedOut = this.ledger.handedOut;
    const slots = this.ledger.take(member, max, maxBytes, performance.now(), leaseMs, Date.now());
    this.expire(this.ledger.expiredMessages());
    const highest = slots.reduce((top, slot) => Math.max(top, slot.offset), -1);
    // One handed out before and given back unsent may be on disk as never delivered: that must not outlive this send.
    const resent = slots.some((slot) => slot.deliveries === 1 && slot.offset < handedOut);
    if (highest >= this.writer.durableMark || resent) {
      // Offsets handed out must lie below the mark on disk: after a crash they count as maybe delivered.
      this.ledger.reserveMark(this.markAfter(highest));
      if (!(await this.writer.durable()) || this.stopping) {
        for (const slot of slots)
          this.ledger.release(slot, { outcome: 'not sent: the subscription stopped', counted: false }, performance.now());
        return [];
      }
    } else if (highest >= 0 && highest + 1 + DELIVERY_MARK_RESERVE / 2 > this.ledger.deliveredMark) {
      // Half the reserve used: the next one is written now, in the background, so the next take need not wait for it.
      if (this.ledger.reserveMark(this.markAfter(highest))) this.writer.writeNow();
    }
    if (slots.length > 0) this.lastLeasedBy = member;
    for (const slot of slots) if (slot.deliveries > 1) this.stats.redelivered++;
    if (slots.some((slot) => slot.deliveries > 1)) this.writer.schedule();
    this.armTimer();
    return slots;
  }

  private shareState(member: string, push: boolean): ShareState {
    let pushMembers = 0;
    for (const pushMember of this.pushMembers.values()) if (!pushMember.backingOff) pushMembers++;
    const unread = this.queue.tailOffset - this.ledger.cursor - this.ledger.windowSize;
    return {
      pushMembers,
      push,
      outstanding: this.ledger.leased + this.ledger.available + Math.max(0, unread),
      held: this.leasesByMember.get(member) ?? 0,
      maxActive: this.currentDefinition.maxActiveMembers ?? Infinity,
    };
  }

  /**
   * The delivery mark to write once `highest` is handed out: a reserve ahead, so that the next takes need not wait for
   * a write. Not bounded by the log's end: a consumer caught up would then wait for a write before every push.
   */
  private markAfter(highest: number): number {
    return highest + 1 + DELIVERY_MARK_RESERVE;
  }

  private leaseWatcher(): LeaseWatcher {
    return {
      leased: (slot) => {
        this.leasedIds?.add(this.idOf(slot), this, slot);
        if (slot.member !== undefined) this.leasesByMember.set(slot.member, (this.leasesByMember.get(slot.member) ?? 0) + 1);
      },
      ended: (slot) => {
        this.leasedIds?.remove(this.idOf(slot), slot);
        const held = slot.member === undefined ? undefined : this.leasesByMember.get(slot.member);
        if (held === undefined) return;
        if (held > 1) this.leasesByMember.set(slot.member!, held - 1);
        else this.leasesByMember.delete(slot.member!);
      },
    };
  }

  private heldByOthers(member: string): boolean {
    for (const [holder, held] of this.leasesByMember) if (holder !== member && held > 0) return true;
    return false;
  }

  /** The id settlements name a message by: its own, or `{topic}@{offset}` for an entry without one (the Java broker's). */
  private idOf(slot: Slot): string {
    return slot.envelope?.id ?? `${this.queue.topic.name}@${slot.offset}`;
  }

  /** The delivery body of a leased message, as pushed or fetched (docs/delivery.md § What the consumer receives). */
  deliveryBody(slot: Slot): Buffer {
    const topic = this.queue.topic.name;
    return encodeDelivery(slot.envelope!, slot.offset, {
      deliveryCount: slot.deliveries,
      lease: leaseToken(topic, slot.offset, slot.deliveries),
      lastAttempt: this.isLastAttempt(slot),
    });
  }

  /** Whether a NACK of the slot's current delivery dead-letters it (see DeliveryLedger.isLastAttempt). */
  isLastAttempt(slot: Slot): boolean {
    return this.ledger.isLastAttempt(slot);
  }

  /** The leased message at `offset` (of delivery `delivery`, when fenced). */
  leaseAt(offset: number, delivery?: number): Slot | undefined {
    return this.ledger.leaseAt(offset, delivery);
  }

  /**
   * Takes this subscription's leases out of the consumer's index, for good: it was detached (stopped), and a
   * settlement by id must find nothing of it (as none by lease or offset does), nor the index keep its slots.
   */
  forgetLeases(): void {
    const ids = this.leasedIds;
    this.leasedIds = undefined;
    for (const slot of ids ? this.ledger.leasedSlots() : []) ids!.remove(this.idOf(slot), slot);
  }

  /** Leased messages at or below `offset` (of `member`, when given), lowest first: what a cumulative ack settles. */
  leasesUpTo(offset: number, member?: string): Slot[] {
    return this.ledger.leasedSlots().filter((slot) => slot.offset <= offset && (member === undefined || slot.member === member));
  }

  leasesOf(member: string): Slot[] {
    return this.ledger.leasesOf(member);
  }

  /** A member was heard from (a push answered, a pull client fetched or settled). */
  seen(member: string): void {
    const now = performance.now();
    this.roster.seen(member, now);
    this.share.refresh(member, now);
  }

  /** A named pull member's fetch waits for messages: it counts for the even split until the returned function is called. */
  waiting(member: string): () => void {
    return this.share.wait(member);
  }

  failing(member: string): void {
    this.roster.failing(member, performance.now());
  }

  /** The state as it would be written now: what a seek plans from. */
  stateSnapshot(): SubscriptionSnapshot {
    return this.ledger.snapshot();
  }

  /**
   * For an exclusive dispatcher: its live active member, unless that is `member` — a seek must not move the
   * subscription under the member receiving from it (unless forced).
   */
  lockedBy(member?: string): string | undefined {
    const active = this.currentDefinition.exclusive ? this.roster.liveActive(performance.now())[0] : undefined;
    return active === member ? undefined : active;
  }

  /** A pull or in-process member is done: it leaves the roster at once, and the earliest backup takes its place. */
  leave(member: string): void {
    this.share.leave(member);
    if (hasRoster(this.currentDefinition)) this.roster.leave(member);
  }

  /**
   * A seek (docs/delivery.md, "Replay and seek"): once the dead letters in progress are written, the ledger starts
   * over at the state `plan` makes of the current one; every lease ends (an ACK of one changes nothing), and the new
   * state is journaled like an ACK's. Resolves with the leases ended once that is durable; false if stopped first.
   */
  async restartAt(plan: (current: SubscriptionSnapshot) => SubscriptionSnapshot): Promise<number | false> {
    if (this.stopping) return false;
    await Promise.allSettled([...this.deadLettering]);
    if (this.stopping) return false;
    const next = plan(this.ledger.snapshot());
    this.stats.recordSeek(this.ledger.cursor, next.cursor);
    const released = this.ledger.restart(next);
    this.trimmer?.released();
    this.armTimer();
    this.signal();
    return (await this.writer.durable()) ? released : false;
  }

  /** Settles a leased message for good — only if `delivery` (when given) is still its current one. */
  ack(slot: Slot, delivery?: number): void {
    if (slot.state !== SlotState.LEASED || (delivery !== undefined && slot.deliveries !== delivery)) return;
    this.ledger.settle(slot);
    this.stats.delivered++;
    this.writer.settled();
    this.signal();
  }

  /**
   * A delivery ended without an ACK: available again, or dead-lettered when it had enough. Resolves once that is
   * applied — when it dead-letters, once the dead letter and the move past the message are durable (the delivery
   * count of a message made available again is durable with {@link durable}). False: it changed nothing (no longer
   * leased as `delivery`, settled by a transaction), or the subscription stopped before the dead letter was durable.
   */
  release(slot: Slot, how: Unsettled, delivery?: number): Promise<boolean> {
    if (slot.state !== SlotState.LEASED || (delivery !== undefined && slot.deliveries !== delivery)) return Promise.resolve(false);
    return new Promise((resolve) =>
      this.transactions.whenUnpinned(slot, (settled) => resolve(settled ? false : this.releaseNow(slot, how))),
    );
  }

  private releaseNow(slot: Slot, how: Unsettled): boolean | Promise<boolean> {
    if (slot.state !== SlotState.LEASED) return false;
    if (how.nack) this.stats.nacked++;
    const verdict = this.ledger.release(slot, how, performance.now());
    const released = verdict ? this.deadLetter(slot, verdict.reason, verdict.lastError) : true;
    if (!verdict) this.trimmer?.released();
    this.armTimer();
    this.signal();
    return released;
  }

  /**
   * Dead-letters a leased message now; resolves once the dead letter and the move past the message are durable (one
   * journal record). False: it changed nothing — not leased any more (settled, dead-lettered already, expired: a
   * repeated terminate makes no second dead letter), settled by a transaction — or the subscription stopped before it
   * was durable. `counted` false: its current delivery never reached a handler (a push refused as too large).
   */
  terminate(slot: Slot, reason: TerminationReason, message: string, counted = true): Promise<boolean> {
    return new Promise((resolve) =>
      this.transactions.whenUnpinned(slot, (settled) => {
        if (settled || !this.ledger.terminate(slot, reason, counted)) return resolve(false);
        resolve(this.deadLetter(slot, reason, message));
      }),
    );
  }

  /**
   * Settles the leased `inputs` and stores `parts` (output messages) in one journal record, with the next state
   * write: resolves with the parts' first offsets once both are durable and visible, rejects with StaleLeaseError
   * (an input is no longer leased as named) or a storage error — then nothing of it was written.
   */
  commitTransaction(inputs: readonly TransactionInput[], parts: readonly CommitPart[]): Promise<Array<number | undefined>> {
    if (this.stopping) return Promise.reject(stoppedError(this.label()));
    return new Promise((resolve, reject) => {
      this.transactions.add({ inputs, parts, resolve, reject });
      this.writer.writeNow();
    });
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

  private trimmerHost(): BacklogTrimmerHost {
    return {
      stopped: () => this.stopping,
      tailOffset: () => this.queue.tailOffset,
      label: () => this.label(),
      fill: (max) => this.reader.fill(max),
      deadLetter: (slot, reason, lastError) => this.deadLetter(slot, reason, lastError, true),
      dropped: (count) => {
        this.stats.backlogDropped += count;
        // Not `settled()`: a crash does not redeliver a dropped message unless the limit no longer drops it.
        this.writer.schedule();
        this.signal();
      },
    };
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
      `${this.label()}: retention (or a dead-letter purge) deleted offsets below ${start} before they were consumed; skipped ${skipped} messages ` +
        `(resuming at ${start}, the oldest retained)`,
    );
    this.writer.schedule();
  }

  skipFiltered(count: number): void {
    this.stats.filtered += count;
    // Not `settled()`: a crash does not redeliver a skipped message (it is skipped again), so no bound is needed.
    this.writer.schedule();
  }

  /**
   * Messages a take found past their `expiresAt` (wall clock): counted, then dead-lettered with reason `EXPIRED`, or
   * settled and dropped when the topic's `expiry.whenExpired` is `drop`.
   */
  private expire(slots: readonly Slot[]): void {
    if (slots.length === 0) return;
    const drop = this.context.policies?.of(this.queue.topic.name).expiry.whenExpired === 'drop';
    for (const slot of slots) {
      this.stats.messagesExpired++;
      if (!drop) {
        void this.deadLetter(slot, 'EXPIRED', `expired at ${new Date(slot.expiresAt).toISOString()}`);
        continue;
      }
      this.ledger.settle(slot);
      this.writer.settled();
    }
    if (drop) this.signal();
  }

  /**
   * Dead-letters a DEAD_LETTERING slot: the dead letter goes into the next state write's journal record, whose
   * snapshot settles the message, and the ledger settles it in the turn that record is applied. Resolves true then;
   * false if the subscription stopped first (the message stays unsettled on disk: delivered again after a restart,
   * with no dead letter). A failed record is retried with backoff. `quiet`: logged by the caller (a backlog limit's
   * drops are logged per interval, not per message).
   */
  private deadLetter(slot: Slot, reason: string, lastError: string, quiet = false): Promise<boolean> {
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
          const prepared = await this.context.deadLetters.prepare(letter);
          const written = this.deadLetters.add(slot, prepared);
          // Someone usually waits (a terminate's answer, the next message of a strictly ordered consumer): not delayed.
          this.writer.writeNow();
          const at = await written;
          prepared.written(at);
          if (!quiet) this.logDeadLettered(slot, reason, at);
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

  private logDeadLettered(slot: Slot, reason: string, at: number): void {
    // Expiry is routine (the producer asked for it): not a warning per message.
    const level = reason === 'EXPIRED' ? 'debug' : 'warn';
    this.logger[level](`${this.label()}: offset ${slot.offset} ${reason} after ${slot.deliveries} deliveries; dead-lettered at ${at}`);
  }

  /**
   * Writes the ledger's state (journaled), with the outputs of the transactions waiting and their inputs settled in
   * the same record, and the dead letters waiting with their messages settled. A failure refuses those transactions
   * and dead letters (a dead letter is retried by its own loop) and is retried with a fresh snapshot, never skipped
   * (an old snapshot written after a transaction's record would un-settle its inputs). Resolves with the ledger
   * version the state on disk matches; false: stopped first.
   */
  private async writeState(file: CheckpointFile, ledger: DeliveryLedger): Promise<number | false> {
    for (let failures = 1; ; failures++) {
      const batch = this.transactions.take();
      const letters = this.deadLetters.take();
      const version = ledger.version;
      const snapshot = ledger.snapshot(union(batch.offsets, letters.offsets));
      let written = version;
      try {
        const parts = [...batch.parts, ...letters.parts];
        const along =
          batch.transactions.length === 0 && letters.letters.length === 0
            ? undefined
            : { parts, applied: () => (written = this.applied(batch, letters, version)) };
        const firstOffsets = await file.write(snapshot, along);
        if (along) {
          this.transactions.committed(batch, firstOffsets.slice(0, batch.parts.length));
          this.deadLetters.committed(letters, firstOffsets.slice(batch.parts.length, parts.length));
          this.signal();
        }
        return written;
      } catch (error) {
        // The journal's own error (a StorageUnavailableError with its Retry-After) says more than the checkpoint's.
        const cause = (error as Error).cause;
        this.transactions.failed(batch, cause instanceof Error ? cause : (error as Error));
        this.deadLetters.failed(letters, cause instanceof Error ? cause : (error as Error));
        if (this.stopping) {
          // Nothing writes after this: dead letters waiting would wait for good (stop() waits for them).
          this.deadLetters.close(stoppedError(this.label()));
          return false;
        }
        // A record refused for a transaction's outputs or a dead letter (its topic's write failed) must not hold back
        // the subscription's own state (pull ACKs wait for it): retried at once, without them; the backoff is for the rest.
        if (batch.transactions.length > 0 || letters.letters.length > 0) continue;
        await this.backoff(failures, `writing the checkpoint ${snapshot.cursor} failed`, error);
      }
    }
  }

  /**
   * A record is applied: the inputs of its transactions and the messages of its dead letters are settled here too, in
   * the same turn. Returns the ledger version the state on disk now matches: this one, if nothing else changed since
   * the snapshot.
   */
  private applied(batch: TransactionBatch, letters: DeadLetterBatch, snapshotVersion: number): number {
    const unchanged = this.ledger.version === snapshotVersion;
    for (const transaction of batch.transactions) {
      for (const { slot } of transaction.inputs) {
        if (slot.state !== SlotState.LEASED) continue;
        this.ledger.settle(slot);
        this.stats.delivered++;
        this.stats.transacted++;
      }
    }
    for (const { slot } of letters.letters) {
      this.ledger.settle(slot);
      this.stats.deadLettered++;
    }
    return unchanged ? this.ledger.version : snapshotVersion;
  }

  private armTimer(): void {
    if (!this.stopping) this.timer.arm(this.ledger.nextDue(performance.now(), Date.now()));
  }

  /** Leases ended: their messages come back (or are dead-lettered); delays ended: available again. */
  private onDue(): void {
    const now = performance.now();
    for (const slot of this.ledger.expired(now)) {
      this.transactions.whenUnpinned(slot, (settled) => {
        if (settled || slot.state !== SlotState.LEASED) return;
        this.stats.expired++;
        const verdict = this.ledger.release(slot, { outcome: 'LEASE_EXPIRED', counted: true }, performance.now());
        // Never rejects: it retries until the dead letter is written or the subscription stops.
        if (verdict) void this.deadLetter(slot, verdict.reason, verdict.lastError);
        else this.trimmer?.released();
        // Deferred while a transaction record held the slot, this runs after onDue's own signal: wake members again.
        this.armTimer();
        this.signal();
      });
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
      this.context.backlogGuard?.remove(this.queue.topic.name, this);
      this.roster.stop();
      await Promise.allSettled([...this.pushMembers.values()].map((member) => member.stop(graceMs)));
      this.stopSignal.abort();
      this.changes.notify();
      this.timer.stop();
      await Promise.allSettled([...this.deadLettering]);
      // Nothing is handed out from here on: the mark drops its reserve, so a restart counts only what was sent.
      this.ledger.trimMark();
      await this.writer.durable();
      this.transactions.close(stoppedError(this.label()));
      this.deadLetters.close(stoppedError(this.label()));
      this.ledger.detach();
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

function stoppedError(label: string): StorageUnavailableError {
  return new StorageUnavailableError(
    `The subscription ${label} stopped (shutdown, or its dispatcher changed); nothing of the transaction was written, retry`,
  );
}

/** Offsets a record settles besides what the ledger settled already. */
function union(a: ReadonlySet<number>, b: ReadonlySet<number>): ReadonlySet<number> {
  if (b.size === 0) return a;
  if (a.size === 0) return b;
  return new Set([...a, ...b]);
}
