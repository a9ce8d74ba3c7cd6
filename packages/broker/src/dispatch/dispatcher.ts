import { Host, HostDefinition, MmmqValidationError } from '@mmmq/core';
import { Injectable } from '@nestjs/common';
import type { DispatcherDefinitionJson } from '../format/dispatcher-json';
import { parseConsumerId, parseDispatcherDefinition, StartFrom, toDefinitionJson } from './dispatcher-definition';
import { BacklogOverflow } from './backlog-limit';
import { DispatcherRegistry } from './dispatcher-registry';
import { SubscriptionContainer } from './subscription-container';

/** A push host: an `http(s)://address:port` URL or `{ protocol, address, port }`. */
export type DispatcherHostInput = string | HostDefinition;

/**
 * A dispatcher as `POST /mmmq/dispatchers` takes it (docs/delivery.md): `host` or `hosts` (none for a consumer that
 * only pulls), `pattern` or `patterns`, and the optional settings with their defaults.
 */
export interface DispatcherInput {
  consumerId: string;
  host?: DispatcherHostInput;
  hosts?: DispatcherHostInput[];
  pattern?: string;
  patterns?: string[];
  startFrom?: StartFrom;
  batchSize?: number;
  maxInFlight?: number;
  /** False: the pushes in flight are independent, not numbered (ordering keys keep per-key order). Default true. */
  ordered?: boolean;
  /** Signs every push (Standard Webhooks); never shown back, only as `signed: true`. */
  signingSecret?: string;
  maxDeliveries?: number;
  ackTimeoutMs?: number;
  /** One member receives at a time: the same as `maxActiveMembers: 1`. */
  exclusive?: boolean;
  /** The first this many live members receive; the others wait as ordered backups, taking over in join order. */
  maxActiveMembers?: number;
  /** The most live members (push hosts, named pull members, in-process listeners) the consumer admits. */
  maxMembers?: number;
  /** Only messages whose headers match this selector (docs/destinations.md#selectors) are delivered. */
  selector?: string;
  /** At most this many messages of a topic not settled by this consumer; then `backlogOverflow` applies. */
  maxBacklog?: number;
  /** `reject` (default): publishes are refused with 429; `dropOldest` / `deadLetter`: the oldest ones give way. */
  backlogOverflow?: BacklogOverflow;
}

/** A new definition for {@link Dispatcher.update}: the consumer id comes from the call (one given here must match). */
export type DispatcherUpdate = Omit<DispatcherInput, 'consumerId'> & { consumerId?: string };

/** What {@link Dispatcher.add} did. */
export interface DispatcherRegistration {
  dispatcher: DispatcherDefinitionJson;
  /** The consumer existed with the same settings and the hosts joined it (HTTP answers 200 instead of 201). */
  joined: boolean;
}

/**
 * The broker's dispatchers, managed from code with the rules of the HTTP API (`/mmmq/dispatchers`, which goes
 * through this service): the same validation, push-target (SSRF) policy and `dispatchers.json` written atomically
 * before anything changes in memory. Failures are typed: `MmmqValidationError` (HTTP 400; `PushTargetRefusedError`
 * is one), `DispatcherNotFoundError` / `PushHostNotFoundError` (404), `DuplicateConsumerIdError` (409).
 */
@Injectable()
export class Dispatcher {
  constructor(
    private readonly registry: DispatcherRegistry,
    private readonly subscriptions: SubscriptionContainer,
  ) {}

  /** Every dispatcher in `dispatchers.json` order, as `GET /mmmq/dispatchers` shows them. */
  list(): DispatcherDefinitionJson[] {
    return this.registry.list().map(toDefinitionJson);
  }

  /** @throws DispatcherNotFoundError */
  get(consumerId: string): DispatcherDefinitionJson {
    return toDefinitionJson(this.registry.get(parseConsumerId(consumerId)));
  }

  /**
   * Registers a consumer: every matching topic is delivered from offset 0 (or its tail, `startFrom: 'latest'`). When
   * the consumer exists with the same settings, the given hosts join it as competing members instead (`joined`).
   *
   * @throws MmmqValidationError an invalid definition, or a host the push-target policy refuses
   * @throws DuplicateConsumerIdError the consumer exists with other settings ({@link update} changes them)
   */
  async add(input: DispatcherInput): Promise<DispatcherRegistration> {
    const { stored, joined } = await this.subscriptions.addDispatcher(parseDispatcherDefinition(input, 'dispatcher'));
    return { dispatcher: toDefinitionJson(stored), joined };
  }

  /**
   * Replaces a dispatcher's definition (as `PUT /mmmq/dispatchers/{consumerId}`): a change of hosts only adds or
   * stops push members; other changes restart its subscriptions from their checkpoints. The same definition again
   * counts as the consumer registering anew: stalled pushes are retried at once.
   *
   * @throws DispatcherNotFoundError
   * @throws MmmqValidationError
   */
  async update(consumerId: string, input: DispatcherUpdate): Promise<DispatcherDefinitionJson> {
    const id = parseConsumerId(consumerId);
    // The input is unchecked JSON when it comes over HTTP: anything but an object is left for the parser to refuse.
    const isObject = typeof input === 'object' && input !== null;
    if (isObject && input.consumerId !== undefined && input.consumerId !== id) {
      throw new MmmqValidationError(`consumerId in the body must be ${id}, as in the path`);
    }
    const definition = parseDispatcherDefinition(isObject ? { ...input, consumerId: id } : input, 'dispatcher');
    await this.subscriptions.replaceDispatcher(definition);
    return toDefinitionJson(definition);
  }

  /**
   * Removes a dispatcher: its subscriptions stop and its checkpoints are deleted.
   * @throws DispatcherNotFoundError
   */
  remove(consumerId: string): Promise<void> {
    return this.subscriptions.removeDispatcher(parseConsumerId(consumerId));
  }

  /**
   * Removes one push host (a replica going away); what it held goes back to the other members, the consumer stays.
   * @throws DispatcherNotFoundError
   * @throws PushHostNotFoundError
   */
  removeHost(consumerId: string, host: DispatcherHostInput): Promise<void> {
    return this.subscriptions.removeHost(parseConsumerId(consumerId), Host.parse(host));
  }
}
