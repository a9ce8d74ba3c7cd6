import type { BacklogOverflow, StartFrom } from '@mmmq/core';
import type { AckMode } from './ack-mode';
import type { DeliveryMode } from './delivery-mode';

/** Messages of one listener handled at once; 1 keeps the broker's order. */
export const DEFAULT_LISTENER_CONCURRENCY = 1;

/** What `@MMMQListener({...})` accepts; `listeners[name]` in the module options overrides all but `pattern`. */
export interface MmmqListenerOptions {
  /** Topics to receive, Ant-style (`order.*`, `news.**`). Default {@link MATCH_ALL_PATTERN} (`**`). */
  pattern?: string;
  /**
   * The listener's name: the key of its entry in the module's `listeners` map and the base of its default
   * consumer id. Default `{ClassName}.{methodName}` for a decorated method, `{ClassName}` for a decorated class.
   */
  name?: string;
  /**
   * The listener's dispatcher id on the broker. Default `{app}.{name in kebab case}`, which changes when the
   * method or class is renamed: set it to keep the broker's position (docs/consumer.md, "Consumer ids").
   */
  consumerId?: string;
  /** Messages handled at once; above 1 the broker's order is not kept. Default {@link DEFAULT_LISTENER_CONCURRENCY}. */
  concurrency?: number;
  /** Where a newly registered dispatcher starts; the broker's default (`earliest`) when absent. */
  startFrom?: StartFrom;
  /** This listener's acknowledge mode (`auto`, `manual`, `dupsOk`, `none`). Default: the module's `ackMode`. */
  ackMode?: AckMode;
  /**
   * Only messages whose headers match this selector (docs/destinations.md#selectors), e.g. `region = 'EU' AND
   * amount > 100`, are delivered to this listener. Default none (every message).
   */
  selector?: string;
  /**
   * The most messages of a topic this listener may have not settled (docs/destinations.md#subscription-backlog-limits).
   * Default none (no limit).
   */
  maxBacklog?: number;
  /**
   * At `maxBacklog`: `reject` (default: publishes to the topic are refused with 429 until the listener catches up),
   * `dropOldest` or `deadLetter` (its oldest messages are skipped, or dead-lettered, for this listener).
   */
  backlogOverflow?: BacklogOverflow;
  /**
   * The first this many live members of the consumer id (its instances, in the order they joined) receive; the
   * others wait as ordered backups and take over, the earliest first, when an active one leaves or fails
   * (docs/delivery.md#active-members-and-backups). 1 is the broker's `exclusive`. Default none (every instance
   * receives). Left out, the dispatcher keeps what it has.
   */
  maxActiveMembers?: number;
  /** The most live members the consumer id admits; an instance beyond it is refused. Default none. Left out, the dispatcher keeps what it has. */
  maxMembers?: number;
  /**
   * `false`: the broker's pushes to this listener are independent (docs/delivery.md#unordered-pushes): up to
   * `deliveryMaxInFlight` at once, not numbered, each settled as it is answered, so a slow or failed push holds back
   * no other; messages with an `mmmq-ordering-key` still come one at a time per key, in order. With `concurrency` above
   * 1 they are handled at once. Not with `maxActiveMembers: 1` (strictly ordered). Pulled and in-process listeners
   * take leases, not pushes: there it changes nothing. Default `true` (numbered pushes, handled in order).
   */
  ordered?: boolean;
  /**
   * Runs the handler through the application's inbox (docs/exactly-once.md#inbox): in one database transaction that
   * first reserves (message id, consumer id); the handler reaches it with `context.inboxTransaction<Tx>()`. A message
   * processed already is acknowledged without running the handler. Needs an inbox provider (`MmmqInboxModule` of
   * `@mmmq/postgres`); not with `ackMode: 'manual'`. Default `false`.
   */
  inbox?: boolean;
  /**
   * How this listener's messages reach it from a broker over HTTP: `push` (to `advertisedUrl`) or `pull` (fetched from
   * `broker`), so one module mixes them. Default: the module's `delivery`. In the broker's own application (no `broker`
   * option) listeners receive in process and this is not set.
   */
  delivery?: DeliveryMode;
}

/** Every field of {@link MmmqListenerOptions}: anything else in a decorator's options fails bootstrap. */
export const LISTENER_OPTION_KEYS: ReadonlySet<string> = new Set<keyof MmmqListenerOptions>([
  'pattern',
  'name',
  'consumerId',
  'concurrency',
  'startFrom',
  'ackMode',
  'selector',
  'maxBacklog',
  'backlogOverflow',
  'maxActiveMembers',
  'maxMembers',
  'ordered',
  'inbox',
  'delivery',
]);
