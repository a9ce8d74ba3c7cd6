import {
  DEFAULT_CLAIM_CHECK_MAX_BYTES,
  isObjectStore,
  DEFAULT_SIGNATURE_TOLERANCE_SECONDS,
  isBearerTokenText,
  MAX_TIMER_MS,
  MmmqError,
  MemberLimits,
  parseBacklogLimit,
  parseMemberLimits,
  SigningSecret,
  isStartFrom,
  START_FROM_CHOICES,
} from '@mmmq/core';
import type { ConsumerClaimCheckOptions } from '../config/claim-check.options';
import { refuseModuleShapingOptions } from '../support/endpoint-option-checks';
import { InvalidConsumerOptionsError } from '../errors/invalid-consumer-options.error';
import { ACK_MODES, DEFAULT_ACK_MODE } from '../listener/ack-mode';
import { assertListenerConsumerId } from '../listener/consumer-id.naming';
import { checkListenerSelector } from '../listener/listener-selector';
import { LISTENER_OPTION_KEYS } from '../listener/mmmq-listener.options';
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_WORKERS,
  DEFAULT_MIN_WORKERS,
  DEFAULT_QUEUE_SIZE,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  ListenerConfig,
  MmmqConsumerOptions,
  StartFrom,
} from '../config/mmmq-consumer.options';
import { DEFAULT_DELIVERY_MODE, DeliveryMode } from '../listener/delivery-mode';
import { describe, nonNegativeInteger, oneOf, plainObject, positiveInteger, refuseUnknownFields } from '../support/option-checks';
import { resolvePull } from '../pull/pull-options.resolver';
import { resolveBrokerAccess, resolvePullRegistration, resolveRegistration } from '../registration/broker-options.resolver';
import type { ResolvedConsumerOptions, ResolvedSigning } from '../config/resolved-consumer-options';
import { resolveTransport } from '../transport/transport-option.resolver';

const OPTION_FIELDS = new Set([
  'app',
  'transport',
  'broker',
  'tls',
  'advertisedUrl',
  'token',
  'autoRegister',
  'queueSize',
  'workers',
  'shutdownTimeoutMs',
  'deliveryBatchSize',
  'deliveryMaxInFlight',
  'maxBodyBytes',
  'signingSecrets',
  'signatureToleranceSeconds',
  'registration',
  'listeners',
  'ackMode',
  'delivery',
  'pull',
  'claimCheck',
]);
const CLAIM_CHECK_FIELDS = new Set(['store', 'maxBytes']);
const WORKERS_FIELDS = new Set(['min', 'max']);
const REGISTRATION_FIELDS = new Set(['failFast', 'attempts', 'backoffMs', 'timeoutMs', 'leaveOnShutdown']);
// What `listeners[name]` may set: a listener's own options but its identity (pattern, name).
const LISTENER_CONFIG_FIELDS: ReadonlySet<string> = new Set([...LISTENER_OPTION_KEYS].filter((key) => key !== 'pattern' && key !== 'name'));
const DELIVERY_MODES: readonly DeliveryMode[] = ['push', 'pull'];

/**
 * Applies defaults and checks every option, naming the offending one, so a typo fails at bootstrap instead
 * of on the first message.
 * @throws InvalidConsumerOptionsError
 */
export function resolveConsumerOptions(options: MmmqConsumerOptions = {}): ResolvedConsumerOptions {
  refuseModuleShapingOptions(plainObject('MmmqConsumerModule options', options));
  refuseUnknownFields('MmmqConsumerModule options', options, OPTION_FIELDS);
  if (options.workers !== undefined) refuseUnknownFields('workers', plainObject('workers', options.workers), WORKERS_FIELDS);
  if (options.registration !== undefined) {
    refuseUnknownFields('registration', plainObject('registration', options.registration), REGISTRATION_FIELDS);
  }
  // First: with a transport, a leftover broker option is the mistake to name, not what else it lacks.
  const transport = resolveTransport(options);
  const app = options.app === undefined ? undefined : validId('app', options.app);
  const delivery = oneOf('delivery', options.delivery ?? DEFAULT_DELIVERY_MODE, DELIVERY_MODES);
  if (delivery === 'pull' && options.broker === undefined) {
    throw new InvalidConsumerOptionsError(`delivery is "pull" but broker is not set; set broker to the URL the messages are fetched from`);
  }
  // Checked even when nothing registers, so that a broken token fails at bootstrap whatever else is set.
  const token = bearerToken(options.token);
  // A default never contradicts the one bound that was given: `{ max: 1 }` alone is a valid pool.
  const givenMin = options.workers?.min === undefined ? undefined : positiveInteger('workers.min', options.workers.min);
  const givenMax = options.workers?.max === undefined ? undefined : positiveInteger('workers.max', options.workers.max);
  const max = givenMax ?? Math.max(DEFAULT_MAX_WORKERS, givenMin ?? 0);
  const min = givenMin ?? Math.min(DEFAULT_MIN_WORKERS, max);
  if (min > max) throw new InvalidConsumerOptionsError(`workers.min (${min}) must not exceed workers.max (${max})`);
  return {
    app,
    queueSize: positiveInteger('queueSize', options.queueSize ?? DEFAULT_QUEUE_SIZE),
    workers: { min, max },
    shutdownTimeoutMs: nonNegativeInteger('shutdownTimeoutMs', options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS, MAX_TIMER_MS),
    maxBodyBytes: positiveInteger('maxBodyBytes', options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES),
    registrations: resolveRegistrations(options, delivery, app, token),
    signing: resolveSigning(options),
    listeners: resolveListenerConfigs(options.listeners ?? {}),
    ackMode: oneOf('ackMode', options.ackMode ?? DEFAULT_ACK_MODE, ACK_MODES),
    delivery,
    broker: resolveBrokerAccess(options, token),
    pull: resolvePull(options.pull, app),
    given: { pull: options.pull, advertisedUrl: options.advertisedUrl, autoRegister: options.autoRegister },
    claimCheck: resolveClaimCheck(options.claimCheck),
    transport,
  };
}

/**
 * The module's default mode is resolved as given (its errors name what is missing); the other mode only where what it
 * needs is there, for the listeners that choose it (checkListenerDelivery names what they lack).
 */
function resolveRegistrations(
  options: MmmqConsumerOptions,
  delivery: DeliveryMode,
  app: string | undefined,
  token: string | undefined,
): ResolvedConsumerOptions['registrations'] {
  const push = delivery === 'push' || options.advertisedUrl !== undefined;
  const pull = delivery === 'pull' || (options.broker !== undefined && app !== undefined);
  return {
    push: push ? resolveRegistration(options, app, token) : undefined,
    pull: pull ? resolvePullRegistration(options, app, token) : undefined,
  };
}

function resolveClaimCheck(claimCheck: unknown): Required<ConsumerClaimCheckOptions> | undefined {
  if (claimCheck === undefined) return undefined;
  refuseUnknownFields('claimCheck', plainObject('claimCheck', claimCheck), CLAIM_CHECK_FIELDS);
  const { store, maxBytes } = claimCheck as ConsumerClaimCheckOptions;
  if (!isObjectStore(store)) {
    throw new InvalidConsumerOptionsError(
      `claimCheck.store must be an ObjectStore (put, get and delete methods), such as new FileSystemObjectStore(dir), got ${describe(store)}`,
    );
  }
  return { store, maxBytes: positiveInteger('claimCheck.maxBytes', maxBytes ?? DEFAULT_CLAIM_CHECK_MAX_BYTES) };
}

function resolveSigning({ signingSecrets, signatureToleranceSeconds }: MmmqConsumerOptions): ResolvedSigning | undefined {
  const toleranceSeconds = positiveInteger('signatureToleranceSeconds', signatureToleranceSeconds ?? DEFAULT_SIGNATURE_TOLERANCE_SECONDS);
  if (signingSecrets === undefined) return undefined;
  if (!Array.isArray(signingSecrets) || signingSecrets.length === 0) {
    throw new InvalidConsumerOptionsError('signingSecrets must be a non-empty array of "whsec_…" secrets, or left out');
  }
  const secrets = signingSecrets.map((secret, i) => {
    try {
      return SigningSecret.parse(secret, `signingSecrets[${i}]`);
    } catch (error) {
      throw new InvalidConsumerOptionsError((error as Error).message, { cause: error });
    }
  });
  return { secrets, toleranceSeconds };
}

/** Never quoted in the error: it is a secret. */
function bearerToken(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (!isBearerTokenText(value)) {
    throw new InvalidConsumerOptionsError('token must be a non-empty string of printable ASCII characters without spaces');
  }
  return value;
}

function resolveListenerConfigs(listeners: unknown): ReadonlyMap<string, ListenerConfig> {
  if (typeof listeners !== 'object' || listeners === null || Array.isArray(listeners)) {
    throw new InvalidConsumerOptionsError(`listeners must be an object keyed by listener name, got ${describe(listeners)}`);
  }
  const resolved = new Map<string, ListenerConfig>();
  for (const [name, config] of Object.entries(listeners as Record<string, unknown>)) {
    resolved.set(name, resolveListenerConfig(`listeners[${JSON.stringify(name)}]`, config));
  }
  return resolved;
}

export function resolveListenerConfig(where: string, config: unknown): ListenerConfig {
  const record = plainObject(where, config);
  refuseUnknownFields(where, record, LISTENER_CONFIG_FIELDS);
  if (record.startFrom !== undefined && !isStartFrom(record.startFrom)) {
    throw new InvalidConsumerOptionsError(`${where}.startFrom must be ${START_FROM_CHOICES}, got ${describe(record.startFrom)}`);
  }
  return {
    consumerId: record.consumerId === undefined ? undefined : validId(`${where}.consumerId`, record.consumerId),
    concurrency: record.concurrency === undefined ? undefined : positiveInteger(`${where}.concurrency`, record.concurrency),
    startFrom: record.startFrom as StartFrom | undefined,
    ackMode: record.ackMode === undefined ? undefined : oneOf(`${where}.ackMode`, record.ackMode, ACK_MODES),
    selector:
      record.selector === undefined
        ? undefined
        : checkListenerSelector(
            `${where}.selector`,
            record.selector,
            (message, cause) => new InvalidConsumerOptionsError(message, { cause }),
          ),
    ...checkedBacklogFields(where, record.maxBacklog, record.backlogOverflow),
    ...checkedMemberLimits(where, record.maxActiveMembers, record.maxMembers),
    ...(record.ordered === undefined ? {} : { ordered: booleanField(`${where}.ordered`, record.ordered) }),
    ...(record.inbox === undefined ? {} : { inbox: booleanField(`${where}.inbox`, record.inbox) }),
    ...(record.delivery === undefined ? {} : { delivery: oneOf(`${where}.delivery`, record.delivery, DELIVERY_MODES) }),
  };
}

/** Each on its own: the decorator may give the other (the listener definition checks them together). */
function checkedBacklogFields(
  where: string,
  maxBacklog: unknown,
  overflow: unknown,
): Pick<ListenerConfig, 'maxBacklog' | 'backlogOverflow'> {
  try {
    return {
      ...(maxBacklog === undefined ? {} : { maxBacklog: parseBacklogLimit(maxBacklog, undefined)!.maxBacklog }),
      ...(overflow === undefined ? {} : { backlogOverflow: parseBacklogLimit(1, overflow)!.overflow }),
    };
  } catch (error) {
    if (!(error instanceof MmmqError)) throw error;
    throw new InvalidConsumerOptionsError(`${where}.${error.message}`, { cause: error });
  }
}

/** Each on its own: the decorator may give the other (the listener definition checks them together). */
function checkedMemberLimits(where: string, maxActiveMembers: unknown, maxMembers: unknown): MemberLimits {
  try {
    return { ...parseMemberLimits(maxActiveMembers, undefined), ...parseMemberLimits(undefined, maxMembers) };
  } catch (error) {
    if (!(error instanceof MmmqError)) throw error;
    throw new InvalidConsumerOptionsError(`${where}.${error.message}`, { cause: error });
  }
}

function validId(name: string, value: unknown): string {
  try {
    return assertListenerConsumerId(value);
  } catch (error) {
    if (!(error instanceof MmmqError)) throw error;
    throw new InvalidConsumerOptionsError(`${name} is invalid: ${error.message}`, { cause: error });
  }
}

function booleanField(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new InvalidConsumerOptionsError(`${name} must be true or false, got ${describe(value)}`);
  return value;
}
