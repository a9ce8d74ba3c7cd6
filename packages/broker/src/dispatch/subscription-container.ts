import { MmmqValidationError, Topic } from '@mmmq/core';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit, Optional } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { BrokerBus } from '../events/broker-bus';
import { BrokerEvents } from '../events/broker-events';
import { RecordsCommittedEvent } from '../storage/journal/records-committed.event';
import { TopicOpenedEvent } from '../storage/topic-opened.event';
import { TopicQueue } from '../storage/topic-queue';
import { TopicQueueContainer } from '../storage/topic-queue-container';
import { DispatcherChangedEvent } from './dispatcher-changed.event';
import { SubscriptionAttachedEvent } from './subscription-attached.event';
import { AttachGate } from '../publish/attach-gate';
import { AttachQueue } from './attach-queue';
import { AttachRetry } from './attach-retry';
import { BacklogGuard } from '../publish/backlog-guard';
import { ScheduledCancellations } from '../publish/scheduled-cancellations';
import { DeadLetterWriter } from './dead-letter-writer';
import { DELIVERY_OBSERVER, DeliveryObserver } from './delivery-observer';
import { DispatcherDefinition, matchesAnyPattern, MAX_HOSTS, sameDefinition, sameSettings } from './dispatcher-definition';
import { DuplicateConsumerIdError, MaxMembersReachedError, PushHostNotFoundError } from './dispatcher.errors';
import { EventLoopDemand } from './event-loop-demand';
import { DispatcherRegistry } from './dispatcher-registry';
import { MMMQ_DISPATCH_OPTIONS, ResolvedDispatchOptions } from './dispatch.options';
import { PushMemberView } from './push-member';
import { PendingSubscriptions } from './pending-subscriptions';
import { PUSHED_REPLIES, type PushedReplies } from './pushed-replies';
import { PushSender } from './push-sender';
import { PushTargetGuard } from './push-target-guard';
import { redriveTopicOf } from './reserved-topics';
import { TopicPolicies } from '../topics/topic-policies';
import { Leased, LeasedIds } from './leased-ids';
import type { DeliveryContext } from './delivery-context';
import { Subscription, SubscriptionState } from './subscription';
import { SubscriptionStatsSnapshot } from './subscription-stats';
import { Host } from '@mmmq/core';
import { startOffsetOf } from './start-offset';
import { BrokerLimitReachedError } from '../config/broker-limit.error';
import { MMMQ_LIMITS_OPTIONS, ResolvedLimitsOptions } from '../config/broker-options';
import { WindowBudget } from './ledger/window-budget';
import type { NeededFrom, RetentionHolders } from '../retention/retention-holders';

/** One open topic and its subscriptions by consumer id. */
interface AttachedTopic {
  queue: TopicQueue;
  subscriptions: Map<string, Subscription>;
  /** Subscriptions whose checkpoint could not be created yet (a full disk), by consumer id: retried with backoff. */
  attaching: Map<string, AttachRetry>;
  /** Set once every subscription the topic had at attach time is open (see `neededFrom`). */
  attached: boolean;
}

/** A row of `GET /mmmq/subscriptions`. */
export interface SubscriptionView {
  topic: string;
  consumerId: string;
  position: number;
  tail: number;
  lag: number;
  /** `unauthorized` while a push host refuses the pushes' signature (see PushMember). */
  state: SubscriptionState;
  /** Messages leased to members now. */
  leased: number;
  /** Scheduled messages read and not due yet (docs/delivery.md#scheduled-messages): not counted in `lag` until due. */
  scheduled: number;
  /** For an exclusive dispatcher: the member receiving now. */
  activeMember?: string;
  /** For a dispatcher with `maxActiveMembers` (or `exclusive`): the members receiving now, in the order they became active. */
  activeMembers?: string[];
  /** Its push members (none for a pull consumer): state, failures in a row, backoff and last error. */
  members: PushMemberView[];
  stats: SubscriptionStatsSnapshot;
}

/**
 * Connects dispatchers to topics: every topic a dispatcher's pattern matches (including topics created later)
 * gets one Subscription. Dispatcher changes are applied one at a time, never while new topics attach (several of
 * those attach together, each topic once), so a consumer never has two subscriptions to one topic and a stopped one
 * never sends again.
 */
@Injectable()
export class SubscriptionContainer implements OnModuleInit, BeforeApplicationShutdown, RetentionHolders {
  private readonly logger = new Logger(SubscriptionContainer.name);
  private readonly topics = new Map<string, AttachedTopic>();
  /** Each consumer's subscriptions by topic name: a fetch finds its own without walking every topic of the broker. */
  private readonly byConsumer = new Map<string, Map<string, Subscription>>();
  /** Each consumer's leases by message id, across its topics; kept while it has subscriptions. */
  private readonly leasedIds = new Map<string, LeasedIds<Subscription>>();
  private readonly context: DeliveryContext;
  private readonly sender: PushSender;
  /** The broker's bus: the log's events come in on it; dispatcher and subscription changes go out on it. */
  private readonly bus: BrokerBus;
  private lock: Promise<unknown> = Promise.resolve();
  /** Subscriptions of topics being created, counted against `limits.maxSubscriptions` until they start. */
  private readonly pending: PendingSubscriptions;
  /**
   * The dispatcher being added or changed, and how many subscriptions its consumer has once that is done: counted
   * from its check on, while its subscriptions start one after another.
   */
  private change?: { definition: DispatcherDefinition; target: number };
  /** Subscriptions retrying to start, across topics (counted here: summing them per topic would walk every topic). */
  private retrying = 0;
  private closing = false;
  /** Topics opened and not attached yet, attached together under the lock. */
  private readonly attaching = new AttachQueue<{ queue: TopicQueue; tailAtOpen: number }>(
    (run) => void this.exclusive(run),
    ({ queue, tailAtOpen }) => this.attach(queue, tailAtOpen),
  );

  constructor(
    private readonly queues: TopicQueueContainer,
    events: BrokerEvents,
    private readonly registry: DispatcherRegistry,
    private readonly targets: PushTargetGuard,
    @Inject(MMMQ_DISPATCH_OPTIONS) private readonly options: ResolvedDispatchOptions,
    policies: TopicPolicies,
    backlogGuard: BacklogGuard,
    private readonly gate: AttachGate,
    readonly loopDemand: EventLoopDemand,
    cancellations: ScheduledCancellations,
    @Optional() @Inject(DELIVERY_OBSERVER) observer?: DeliveryObserver,
    @Optional() @Inject(MMMQ_LIMITS_OPTIONS) private readonly limits?: ResolvedLimitsOptions,
    @Optional() windows?: WindowBudget,
    @Optional() @Inject(PUSHED_REPLIES) replies?: PushedReplies,
  ) {
    this.sender = new PushSender(options.delivery.timeoutMs, targets, options.delivery, replies);
    this.pending = new PendingSubscriptions((topic) => queues.isOpenOrOpening(topic));
    loopDemand.watch(
      () => this.sender.inFlight,
      (topic) => this.topics.get(topic)?.subscriptions.keys() ?? [],
    );
    const deadLetters = new DeadLetterWriter(queues, events);
    this.context = {
      sender: this.sender,
      deadLetters,
      options: options.delivery,
      events,
      policies,
      backlogGuard,
      cancellations,
      observer,
      windows: windows ?? new WindowBudget(),
    };
    this.bus = queues.bus;
  }

  async onModuleInit(): Promise<void> {
    await this.registry.load(this.options.dispatchers);
    this.logger.log(`${this.registry.list().length} dispatchers loaded`);
    this.queues.addCreationGuard((topics) => this.reserveSubscriptions(topics));
    this.bus.listen(this);
    await Promise.all(this.queues.list().map((queue) => this.attachNew(queue, queue.tailOffset)));
  }

  @OnEvent(TopicOpenedEvent.NAME)
  topicOpened({ queue }: TopicOpenedEvent): void {
    // Captured now: a commit made meanwhile (a dead letter, which does not wait for the gate) stays after it.
    this.attachNew(queue, queue.tailOffset).catch((error: Error) =>
      this.logger.error(`Subscribing to topic ${queue.topic.name} failed`, error.stack),
    );
  }

  @OnEvent(RecordsCommittedEvent.NAME)
  recordsCommitted({ topics }: RecordsCommittedEvent): void {
    for (const { name } of topics) {
      const attached = this.topics.get(name);
      if (attached) for (const subscription of attached.subscriptions.values()) subscription.signal();
    }
  }

  /** Attaches the matching subscriptions to a topic just opened; producers' publishes to it wait until then. */
  private attachNew(queue: TopicQueue, tailAtOpen: number): Promise<void> {
    const attached = this.attaching.add({ queue, tailAtOpen });
    this.gate.hold(queue.topic.name, attached);
    return attached;
  }

  /**
   * Registers a dispatcher; every matching topic starts at offset 0 (or at its tail for `startFrom: latest`, or at a
   * time's first message for `startFrom: {time}`). When
   * the consumer exists with the same settings, its hosts join it as more members instead (competing consumers)
   * and the answer is `joined`; hosts that already were members count as registering again and retry at once. Hosts are checked first (and names resolved, outside the lock): a refused one
   * changes nothing.
   *
   * @throws PushTargetRefusedError
   * @throws DuplicateConsumerIdError when the consumer exists with other settings (a PUT changes them)
   * @throws MmmqValidationError when joining would give the consumer more than `MAX_HOSTS` hosts
   */
  async addDispatcher(definition: DispatcherDefinition): Promise<{ stored: DispatcherDefinition; joined: boolean }> {
    for (const host of definition.hosts) await this.targets.checkRegistration(host);
    return this.exclusive(async () => {
      const existing = this.registry.find(definition.consumerId);
      if (existing) {
        if (!sameSettings(existing, definition)) {
          throw new DuplicateConsumerIdError(definition.consumerId, 'with other settings; PUT /mmmq/dispatchers/{consumerId} changes them');
        }
        const hosts = [...existing.hosts, ...definition.hosts.filter((host) => !existing.hosts.some((known) => known.equals(host)))];
        // The file must stay one the broker loads at its next start.
        if (hosts.length > MAX_HOSTS) {
          throw new MmmqValidationError(
            `hosts: consumer ${definition.consumerId} has ${existing.hosts.length} hosts; joining would make ${hosts.length}, more than ${MAX_HOSTS}`,
          );
        }
        this.assertMembersFit(existing, hosts.length, definition.hosts);
        const stored = hosts.length === existing.hosts.length ? existing : { ...existing, hosts };
        if (stored !== existing) await this.applyHosts(existing, stored);
        // A host registering again is back (typically after an outage): its backoff ends and delivery resumes now.
        for (const subscription of this.subscriptionsOf(definition.consumerId)) subscription.retryNow(definition.hosts);
        return { stored, joined: true };
      }
      this.assertDispatcherFits(definition.consumerId);
      const target = this.matchingTopics(definition);
      this.assertSubscriptionsFit(1, () => target);
      await this.changing(definition, target, async () => {
        await this.registry.add(definition);
        for (const topic of this.topics.values()) {
          if (this.matches(definition, topic.queue.topic)) await this.open(topic, definition, topic.queue.tailOffset);
        }
      });
      this.bus.emit(DispatcherChangedEvent.NAME, new DispatcherChangedEvent(undefined, definition));
      return { stored: definition, joined: false };
    });
  }

  /**
   * Removes one push host from a consumer (a replica going away); its messages in flight go back to the other
   * members. The consumer, its checkpoints and its pull members stay.
   */
  removeHost(consumerId: string, host: Host): Promise<void> {
    return this.exclusive(async () => {
      const existing = this.registry.get(consumerId);
      if (!existing.hosts.some((known) => known.equals(host))) throw new PushHostNotFoundError(consumerId, host);
      await this.applyHosts(existing, { ...existing, hosts: existing.hosts.filter((known) => !known.equals(host)) });
    });
  }

  /**
   * Replaces a dispatcher. A change of hosts only adds or stops push members. Any other change: where it still
   * matches, the old subscription stops (in-flight pushes are abandoned and redelivered) and the new one continues
   * from the same checkpoint; topics it no longer matches lose their checkpoint; newly matched topics start fresh.
   * Replacing with the same definition counts as the consumer registering again: its subscriptions retry at once
   * (leaving the `unauthorized` state).
   *
   * @throws PushTargetRefusedError
   */
  async replaceDispatcher(definition: DispatcherDefinition): Promise<void> {
    for (const host of definition.hosts) await this.targets.checkRegistration(host);
    return this.exclusive(async () => {
      const previous = this.registry.get(definition.consumerId);
      if (sameDefinition(previous, definition)) {
        await this.registry.replace(definition);
        for (const subscription of this.subscriptionsOf(definition.consumerId)) subscription.retryNow();
        return;
      }
      if (sameSettings(previous, definition)) return this.applyHosts(previous, definition);
      const target = this.matchingTopics(definition);
      this.assertSubscriptionsFit(1, () => target - this.subscriptionCountOf(definition.consumerId));
      await this.changing(definition, target, async () => {
        await this.registry.replace(definition);
        for (const topic of this.topics.values()) {
          const matches = this.matches(definition, topic.queue.topic);
          const existed = await this.detach(topic, definition.consumerId, !matches);
          if (matches) await this.open(topic, definition, existed ? undefined : topic.queue.tailOffset);
        }
      });
      this.bus.emit(DispatcherChangedEvent.NAME, new DispatcherChangedEvent(previous, definition));
    });
  }

  /**
   * Hosts joining count with the members the consumer has already (push hosts, live pull and in-process members).
   * @throws MaxMembersReachedError when they would make more than `maxMembers`
   */
  private assertMembersFit(existing: DispatcherDefinition, hosts: number, joining: readonly Host[]): void {
    const { maxMembers, consumerId } = existing;
    if (maxMembers === undefined || hosts === existing.hosts.length) return;
    const others = Math.max(0, ...this.subscriptionsOf(consumerId).map((subscription) => subscription.otherMembers));
    if (hosts + others <= maxMembers) return;
    throw new MaxMembersReachedError(
      `consumer ${consumerId}`,
      maxMembers,
      [...existing.hosts.map((host) => host.toUrl()), ...(others > 0 ? [`${others} pull or in-process`] : [])],
      joining.map((host) => host.toUrl()).join(', '),
    );
  }

  /** Removes a dispatcher: its subscriptions stop and its checkpoints are deleted in every topic. */
  removeDispatcher(consumerId: string): Promise<void> {
    return this.exclusive(async () => {
      const removed = await this.registry.remove(consumerId);
      for (const topic of this.pending.topics()) this.pending.setMatch(topic.name, consumerId, false);
      for (const topic of this.topics.values()) await this.detach(topic, consumerId, true);
      this.bus.emit(DispatcherChangedEvent.NAME, new DispatcherChangedEvent(removed, undefined));
    });
  }

  /** The consumer's subscriptions, one per topic it reads (for fetches). */
  subscriptionsOf(consumerId: string): Subscription[] {
    const subscriptions = this.byConsumer.get(consumerId);
    return subscriptions ? [...subscriptions.values()] : [];
  }

  /** {@link subscriptionsOf} as a live iteration, without copying them (a `**` consumer may have 100,000). */
  eachSubscriptionOf(consumerId: string): Iterable<Subscription> {
    return this.byConsumer.get(consumerId)?.values() ?? [];
  }

  /** The consumer's lease of the message with this id, in any of its topics (one lookup, whatever it holds). */
  leaseOfId(consumerId: string, id: string): Leased<Subscription> | undefined {
    return this.leasedIds.get(consumerId)?.find(id);
  }

  /** The consumer's subscription to one topic. */
  subscriptionOf(consumerId: string, topic: string): Subscription | undefined {
    return this.topics.get(topic)?.subscriptions.get(consumerId);
  }

  /**
   * The lowest journaled cursor among the topic's checkpoints and the consumers at it: retention with `whenNeeded:
   * keep` deletes nothing at or past it. `Infinity` without any; 0 while it cannot be known (the topic's
   * subscriptions are not all attached yet, or one is still retrying to create its checkpoint).
   */
  async neededFrom(topic: string): Promise<NeededFrom> {
    const attached = this.topics.get(topic);
    if (!attached?.attached) return { offset: 0, consumerIds: [] };
    if (attached.attaching.size > 0) return { offset: 0, consumerIds: [...attached.attaching.keys()] };
    return attached.queue.checkpoints.lowestCursor();
  }

  private async applyHosts(previous: DispatcherDefinition, definition: DispatcherDefinition): Promise<void> {
    await this.registry.replace(definition);
    await Promise.all(this.subscriptionsOf(definition.consumerId).map((subscription) => subscription.setHosts(definition)));
    this.bus.emit(DispatcherChangedEvent.NAME, new DispatcherChangedEvent(previous, definition));
  }

  list(): SubscriptionView[] {
    return [...this.topics.values()].flatMap(({ queue, subscriptions }) =>
      [...subscriptions.values()].map((subscription) => ({
        topic: queue.topic.name,
        consumerId: subscription.consumerId,
        position: subscription.position,
        tail: queue.tailOffset,
        lag: subscription.backlog,
        state: subscription.state,
        leased: subscription.leased,
        scheduled: subscription.scheduled,
        ...activeOf(subscription),
        members: subscription.members,
        stats: subscription.stats.snapshot(),
      })),
    );
  }

  private async attach(queue: TopicQueue, tailAtOpen: number): Promise<void> {
    try {
      await this.attachOnce(queue, tailAtOpen);
    } finally {
      this.pending.attached(queue.topic.name);
    }
  }

  private async attachOnce(queue: TopicQueue, tailAtOpen: number): Promise<void> {
    if (this.closing || this.topics.has(queue.topic.name)) return;
    const topic: AttachedTopic = { queue, subscriptions: new Map(), attaching: new Map(), attached: false };
    this.topics.set(queue.topic.name, topic);
    const withCheckpoint = new Set(await queue.checkpoints.consumerIds());
    for (const definition of this.registry.list()) {
      if (this.matches(definition, queue.topic)) {
        await this.open(topic, definition, withCheckpoint.has(definition.consumerId) ? undefined : tailAtOpen);
      }
    }
    for (const consumerId of withCheckpoint) {
      if (topic.subscriptions.has(consumerId)) continue;
      // Left by a dispatcher removed while the broker was down; re-adding it must not resume a stale position.
      await queue.checkpoints.delete(consumerId);
      this.logger.warn(`Topic ${queue.topic.name}: deleted the checkpoint of unknown consumer ${consumerId}`);
    }
    topic.attached = true;
  }

  /** `limits.maxDispatchers`: refuses a new consumer id once that many are registered. */
  private assertDispatcherFits(consumerId: string): void {
    const max = this.limits?.maxDispatchers ?? Infinity;
    const registered = this.registry.list().length;
    if (registered >= max) {
      throw new BrokerLimitReachedError(
        'limits.maxDispatchers',
        max,
        `Registering dispatcher ${consumerId} beside the ${registered} there are`,
      );
    }
  }

  /**
   * `limits.maxSubscriptions`: refuses a change adding `added()` subscriptions (counted only when needed: it walks the
   * topics or dispatchers) past the cap. `atLeast` is a cheap lower bound of it: 0 skips the count.
   */
  private assertSubscriptionsFit(atLeast: number, added: () => number): void {
    const max = this.limits?.maxSubscriptions ?? Infinity;
    if (max === Infinity || atLeast <= 0) return;
    const subscriptions = this.subscriptionCount();
    const adding = added();
    if (adding > 0 && subscriptions + adding > max) {
      throw new BrokerLimitReachedError(
        'limits.maxSubscriptions',
        max,
        `Adding ${adding} subscription${adding === 1 ? '' : 's'} (topic × consumer) to the ${subscriptions} there are`,
      );
    }
  }

  /**
   * Subscriptions started, retrying to start, promised to topics being created, and those the dispatcher change in
   * progress has yet to start.
   */
  private subscriptionCount(): number {
    let count = this.pending.count;
    for (const ofConsumer of this.byConsumer.values()) count += ofConsumer.size;
    count += this.retrying;
    if (this.change) count += Math.max(0, this.change.target - this.subscriptionCountOf(this.change.definition.consumerId));
    return count;
  }

  /** The consumer's subscriptions: started, retrying to start, and promised to topics being created. */
  private subscriptionCountOf(consumerId: string): number {
    let count = this.byConsumer.get(consumerId)?.size ?? 0;
    for (const topic of this.topics.values()) if (topic.attaching.has(consumerId)) count++;
    return count + this.pending.reservedFor(consumerId);
  }

  /**
   * Runs a dispatcher change (under the lock) counting its `target` subscriptions from now on; the topics being
   * created that it matches get it promised once it is registered.
   */
  private async changing(definition: DispatcherDefinition, target: number, work: () => Promise<void>): Promise<void> {
    this.change = { definition, target };
    try {
      await work();
    } finally {
      this.change = undefined;
      const registered = this.registry.find(definition.consumerId);
      for (const topic of this.pending.topics())
        this.pending.setMatch(topic.name, definition.consumerId, registered !== undefined && this.matches(registered, topic));
    }
  }

  /** How many open topics (and topics being created) the dispatcher would subscribe to. */
  private matchingTopics(definition: DispatcherDefinition): number {
    let count = 0;
    for (const topic of this.topics.values()) if (this.matches(definition, topic.queue.topic)) count++;
    for (const topic of this.pending.topics()) if (!this.topics.has(topic.name) && this.matches(definition, topic)) count++;
    return count;
  }

  /**
   * The creation guard: refuses topics whose subscriptions would pass `limits.maxSubscriptions`, or counts them as
   * promised in the same turn, so that the next creation's check sees them.
   */
  private reserveSubscriptions(topics: readonly Topic[]): void {
    this.assertSubscriptionsFit(topics.length, () => this.matchingSubscriptions(topics));
    const definitions = this.definitions();
    for (const topic of topics) {
      const consumerIds = definitions.filter((definition) => this.matches(definition, topic)).map(({ consumerId }) => consumerId);
      if (consumerIds.length > 0) this.pending.reserve(topic, consumerIds);
      // The change in progress counted the topics there were; this one is promised to its consumer now.
      if (this.change && this.matches(this.change.definition, topic)) this.change.target++;
    }
  }

  /** The registered dispatchers, with the one being added or changed as it will be. */
  private definitions(): readonly DispatcherDefinition[] {
    const registered = this.registry.list();
    const change = this.change?.definition;
    if (!change) return registered;
    return [...registered.filter(({ consumerId }) => consumerId !== change.consumerId), change];
  }

  /** How many subscriptions creating `topics` would add: one per matching dispatcher. */
  private matchingSubscriptions(topics: readonly Topic[]): number {
    const definitions = this.definitions();
    let count = 0;
    for (const topic of topics) for (const definition of definitions) if (this.matches(definition, topic)) count++;
    return count;
  }

  private matches(definition: DispatcherDefinition, topic: Topic): boolean {
    return matchesAnyPattern(definition, topic) || topic.name === redriveTopicOf(definition.consumerId);
  }

  /**
   * Subscribes the consumer to the topic: from its checkpoint, or — a new subscription — from `tail` for
   * `startFrom: latest`, the first message published at or after the time of `startFrom: {time}` (else the topic's
   * start offset, 0 unless retention deleted the oldest segments). If its checkpoint cannot be created or written (a full disk), the attach is
   * retried with the delivery backoff until it succeeds, the dispatcher changes or the broker shuts down.
   */
  private async open(topic: AttachedTopic, definition: DispatcherDefinition, tail: number | undefined) {
    try {
      await this.subscribe(topic, definition, tail);
    } catch (failure) {
      const attempt = (cancelled: AbortSignal) =>
        this.exclusive(async () => {
          if (cancelled.aborted || this.closing) return false;
          await this.subscribe(topic, definition, tail);
          this.endRetry(topic, definition.consumerId);
          return true;
        });
      const label = `${topic.queue.topic.name} → ${definition.consumerId}`;
      topic.attaching.set(definition.consumerId, new AttachRetry(label, this.options.delivery.backoff, attempt, failure));
      this.retrying++;
      this.pending.started(topic.queue.topic.name, definition.consumerId);
    }
  }

  private async subscribe(topic: AttachedTopic, definition: DispatcherDefinition, tail: number | undefined) {
    const initial = await startOffsetOf(topic.queue, definition.startFrom, tail);
    const checkpoint = await topic.queue.checkpoints.open(definition.consumerId, initial, topic.queue.tailOffset);
    let leasedIds = this.leasedIds.get(definition.consumerId);
    if (!leasedIds) this.leasedIds.set(definition.consumerId, (leasedIds = new LeasedIds<Subscription>()));
    const subscription = new Subscription(topic.queue, definition, checkpoint, this.context, leasedIds);
    topic.subscriptions.set(definition.consumerId, subscription);
    let ofConsumer = this.byConsumer.get(definition.consumerId);
    if (!ofConsumer) this.byConsumer.set(definition.consumerId, (ofConsumer = new Map()));
    ofConsumer.set(topic.queue.topic.name, subscription);
    this.pending.started(topic.queue.topic.name, definition.consumerId);
    subscription.signal();
    this.bus.emit(SubscriptionAttachedEvent.NAME, new SubscriptionAttachedEvent(topic.queue.topic.name, definition.consumerId));
  }

  /** Ends the consumer's subscription to the topic, attached or still retrying to attach; true if it had one. */
  private async detach(topic: AttachedTopic, consumerId: string, deleteCheckpoint: boolean): Promise<boolean> {
    const subscription = topic.subscriptions.get(consumerId);
    const retry = topic.attaching.get(consumerId);
    retry?.cancel();
    this.endRetry(topic, consumerId);
    if (subscription) {
      await subscription.stop();
      subscription.forgetLeases();
      topic.subscriptions.delete(consumerId);
      const ofConsumer = this.byConsumer.get(consumerId);
      ofConsumer?.delete(topic.queue.topic.name);
      if (ofConsumer?.size === 0) {
        this.byConsumer.delete(consumerId);
        this.leasedIds.delete(consumerId);
      }
    }
    if (!subscription && !retry) return false;
    if (deleteCheckpoint) await topic.queue.checkpoints.delete(consumerId);
    return true;
  }

  private endRetry(topic: AttachedTopic, consumerId: string): void {
    if (topic.attaching.delete(consumerId)) this.retrying--;
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.lock.then(work);
    this.lock = run.catch(() => undefined);
    return run;
  }

  /** Stops every subscription (in-flight pushes get the grace period) before the topic files close. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await this.lock;
    const retries = [...this.topics.values()].flatMap((topic) => [...topic.attaching.values()]);
    for (const retry of retries) retry.cancel();
    const all = [...this.topics.values()].flatMap((topic) => [...topic.subscriptions.values()]);
    await Promise.allSettled([
      ...retries.map((retry) => retry.done),
      ...all.map((subscription) => subscription.stop(this.options.delivery.shutdownGraceMs)),
    ]);
    this.sender.close();
    this.logger.log(`Stopped ${all.length} subscriptions`);
  }
}

function activeOf(subscription: Subscription): Pick<SubscriptionView, 'activeMember' | 'activeMembers'> {
  const activeMembers = subscription.activeMembers;
  if (activeMembers === undefined) return {};
  return subscription.definition.exclusive && activeMembers.length > 0
    ? { activeMember: activeMembers[0], activeMembers }
    : { activeMembers };
}
