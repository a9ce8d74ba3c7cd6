import { isBearerTokenText, MmmqError, optionChecks, TopicPattern } from '@mmmq/core';
import { InvalidBrokerOptionsError } from '../config/invalid-broker-options.error';
import { AuthTokenOptions, MAX_TOKEN_LENGTH, MIN_TOKEN_LENGTH } from './auth.options';
import { ADMIN_ROLE, BROKER_ROLES, BrokerRole, isBrokerRole } from './broker-role';
import { ConsumerScope } from './consumer-scope';
import { tokenDigest } from './token-digest';

const { refuseUnknownFields } = optionChecks(InvalidBrokerOptionsError);

/** A configured token after validation; the token itself is kept only as its digest. */
export interface ResolvedAuthToken {
  name: string;
  digest: Buffer;
  roles: readonly BrokerRole[];
  /** Undefined: any topic. */
  topics: readonly TopicPattern[] | undefined;
  /** The consumer ids it may act for; undefined: any. */
  consumers: ConsumerScope | undefined;
}

/** Authentication settings after validation; no tokens means authentication is off (loopback clients only). */
export interface ResolvedAuthOptions {
  tokens: readonly ResolvedAuthToken[];
}

export const MMMQ_AUTH_OPTIONS = Symbol('MMMQ_AUTH_OPTIONS');

const AUTH_FIELDS: ReadonlySet<string> = new Set(['tokens']);
const TOKEN_FIELDS: ReadonlySet<string> = new Set<keyof AuthTokenOptions>(['token', 'roles', 'topics', 'consumers', 'name']);
const TOKEN_SHAPE = '{ token, roles, topics?, consumers?, name? }';

/**
 * Checks the `auth` option, naming the offending entry without ever quoting a token.
 * @throws InvalidBrokerOptionsError
 */
export function resolveAuthOptions(auth: unknown = {}): ResolvedAuthOptions {
  if (!isRecord(auth)) throw new InvalidBrokerOptionsError('auth must be an object { tokens }');
  refuseUnknownFields('auth', auth, AUTH_FIELDS);
  return { tokens: resolveAuthTokens(auth.tokens ?? [], 'auth.tokens') };
}

/**
 * Checks a list of tokens; `option` names it in errors (`auth.tokens`, or the environment variable it came from).
 * @throws InvalidBrokerOptionsError
 */
export function resolveAuthTokens(tokens: unknown, option: string): ResolvedAuthToken[] {
  if (!Array.isArray(tokens)) throw new InvalidBrokerOptionsError(`${option} must be an array of ${TOKEN_SHAPE}`);
  const resolved = tokens.map((entry, index) => resolveToken(entry, `${option}[${index}]`));
  resolved.forEach((token, index) => {
    const first = resolved.findIndex((other) => other.digest.equals(token.digest));
    if (first !== index) throw new InvalidBrokerOptionsError(`${option}[${index}] repeats the token of ${option}[${first}]`);
  });
  return resolved;
}

function resolveToken(entry: unknown, where: string): ResolvedAuthToken {
  if (!isRecord(entry)) throw new InvalidBrokerOptionsError(`${where} must be an object ${TOKEN_SHAPE}`);
  refuseUnknownFields(where, entry, TOKEN_FIELDS);
  const { token, roles, topics, consumers, name } = entry;
  if (!isBearerTokenText(token)) {
    throw new InvalidBrokerOptionsError(`${where}.token must be a string of printable ASCII characters without spaces`);
  }
  if (token.length < MIN_TOKEN_LENGTH || token.length > MAX_TOKEN_LENGTH) {
    throw new InvalidBrokerOptionsError(
      `${where}.token must be ${MIN_TOKEN_LENGTH} to ${MAX_TOKEN_LENGTH} characters long, got ${token.length}`,
    );
  }
  if (name !== undefined && (typeof name !== 'string' || name.trim() === '')) {
    throw new InvalidBrokerOptionsError(`${where}.name must be a non-blank string`);
  }
  const resolvedRoles = resolveRoles(roles, `${where}.roles`);
  return {
    name: (name as string | undefined) ?? where,
    digest: tokenDigest(token),
    roles: resolvedRoles,
    topics: topics === undefined ? undefined : resolveTopics(topics, `${where}.topics`, resolvedRoles),
    consumers: consumers === undefined ? undefined : resolveConsumers(consumers, `${where}.consumers`, resolvedRoles),
  };
}

function resolveRoles(roles: unknown, where: string): BrokerRole[] {
  if (!Array.isArray(roles) || roles.length === 0) {
    throw new InvalidBrokerOptionsError(`${where} must be a non-empty array of ${BROKER_ROLES.join(', ')}`);
  }
  const unknown = roles.find((role) => !isBrokerRole(role));
  if (unknown !== undefined) {
    throw new InvalidBrokerOptionsError(`${where} holds ${JSON.stringify(unknown)}; the roles are ${BROKER_ROLES.join(', ')}`);
  }
  return [...new Set(roles as BrokerRole[])];
}

function resolveTopics(topics: unknown, where: string, roles: readonly BrokerRole[]): TopicPattern[] {
  if (!roles.includes('publish') && !roles.includes('admin')) {
    throw new InvalidBrokerOptionsError(`${where} limits publishing, but the token has neither the publish nor the admin role`);
  }
  if (!Array.isArray(topics) || topics.length === 0) {
    throw new InvalidBrokerOptionsError(`${where} must be a non-empty array of topic patterns (omit it to allow every topic)`);
  }
  return topics.map((pattern, index) => {
    try {
      return TopicPattern.of(pattern);
    } catch (error) {
      if (!(error instanceof MmmqError)) throw error;
      throw new InvalidBrokerOptionsError(`${where}[${index}]: ${error.message}`, { cause: error });
    }
  });
}

function resolveConsumers(consumers: unknown, where: string, roles: readonly BrokerRole[]): ConsumerScope {
  if (roles.includes(ADMIN_ROLE)) {
    throw new InvalidBrokerOptionsError(
      `${where} limits the consumer ids a token acts for, but the token has the admin role, which reads every ` +
        "consumer's dead letters and every topic: give a limited token the consume role, and no admin",
    );
  }
  if (!roles.includes('consume')) {
    throw new InvalidBrokerOptionsError(`${where} limits the consumer ids a token acts for, but the token lacks the consume role`);
  }
  if (!Array.isArray(consumers) || consumers.length === 0) {
    throw new InvalidBrokerOptionsError(`${where} must be a non-empty array of consumer-id patterns (omit it to allow every consumer id)`);
  }
  const patterns = consumers.map((pattern, index) => {
    try {
      return ConsumerScope.checkPattern(pattern);
    } catch (error) {
      if (!(error instanceof MmmqError)) throw error;
      throw new InvalidBrokerOptionsError(`${where}[${index}]: ${error.message}`, { cause: error });
    }
  });
  return ConsumerScope.of(patterns);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
