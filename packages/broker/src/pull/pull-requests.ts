import { MAX_FETCH_MESSAGES, MAX_FETCH_WAIT_MS, MAX_NACK_DELAY_MS, MmmqValidationError } from '@mmmq/core';
import { parseAckTimeoutMs } from '../dispatch/dispatcher-definition';
import { PUSH_BATCH_MAX_BYTES } from '../dispatch/ledger/batch-bytes';

/** The most leases one settle request names. */
export const MAX_SETTLE_ITEMS = 10_000;
const MEMBER = /^[A-Za-z0-9._:-]{1,128}$/;

export interface FetchRequest {
  max: number;
  waitMs: number;
  ackTimeoutMs?: number;
  maxBytes: number;
  member?: string;
  /** Settle on send (ack mode `none`). */
  autoAck: boolean;
}

/** One message to settle: by lease token (fenced), by topic and offset, or by id. */
export type SettleItem = { lease: string } | { topic: string; offset: number } | { id: string };

/** A cumulative ack: every message of `topic` at or below `offset` leased to the consumer (to `member`, when named). */
export interface UpTo {
  topic: string;
  offset: number;
  member?: string;
}

export interface SettleRequest {
  items: SettleItem[];
  /** `ack` only: settles everything up to an offset instead of (or besides) the items. */
  upTo?: UpTo;
  delayMs?: number;
  ackTimeoutMs?: number;
  reason?: string;
}

export function parseFetchRequest(body: unknown): FetchRequest {
  const record = objectWith(body, ['max', 'waitMs', 'ackTimeoutMs', 'maxBytes', 'member', 'autoAck']);
  if (record.member !== undefined) parsePullMember(record.member);
  if (record.autoAck !== undefined && typeof record.autoAck !== 'boolean') throw new MmmqValidationError('autoAck must be true or false');
  return {
    max: integer('max', record.max, 1, 1, MAX_FETCH_MESSAGES),
    waitMs: integer('waitMs', record.waitMs, 0, 0, MAX_FETCH_WAIT_MS),
    ackTimeoutMs: parseAckTimeoutMs('ackTimeoutMs', record.ackTimeoutMs),
    maxBytes: integer('maxBytes', record.maxBytes, PUSH_BATCH_MAX_BYTES, 1, 64 * PUSH_BATCH_MAX_BYTES),
    member: record.member as string | undefined,
    autoAck: record.autoAck === true,
  };
}

/** `{"leases":[…]}` (+ `delayMs` for a NACK, `ackTimeoutMs` for an extend, `reason` for a terminate). */
export function parseSettleRequest(body: unknown, extra: 'delayMs' | 'ackTimeoutMs' | 'reason' | undefined): SettleRequest {
  const record = objectWith(body, extra ? ['leases', extra] : ['leases']);
  const request: SettleRequest = { items: parseItems(record.leases) };
  if (extra === 'delayMs') request.delayMs = integer('delayMs', record.delayMs, 0, 0, MAX_NACK_DELAY_MS);
  if (extra === 'ackTimeoutMs') request.ackTimeoutMs = parseAckTimeoutMs('ackTimeoutMs', record.ackTimeoutMs);
  if (extra === 'reason' && record.reason !== undefined) {
    if (typeof record.reason !== 'string') throw new MmmqValidationError('reason must be a string');
    request.reason = record.reason.slice(0, 1000);
  }
  return request;
}

/** An ack: `{"leases":[…]}`, `{"upTo":{"topic","offset"[,"member"]}}`, or both. */
export function parseAckRequest(body: unknown): SettleRequest {
  const record = objectWith(body, ['leases', 'upTo']);
  if (record.upTo === undefined) return { items: parseItems(record.leases) };
  return { items: record.leases === undefined ? [] : parseItems(record.leases), upTo: parseUpTo(record.upTo) };
}

/** A pull member's id (`member` of a fetch, recover, seek). @throws MmmqValidationError */
export function parsePullMember(input: unknown): string {
  if (typeof input !== 'string' || !MEMBER.test(input))
    throw new MmmqValidationError(`member must match ${MEMBER.source}, got ${JSON.stringify(input)}`);
  return input;
}

function parseItems(leases: unknown): SettleItem[] {
  if (!Array.isArray(leases) || leases.length === 0 || leases.length > MAX_SETTLE_ITEMS) {
    throw new MmmqValidationError(`leases must be an array of 1 to ${MAX_SETTLE_ITEMS} lease tokens (or {"topic","offset"} / {"id"})`);
  }
  return leases.map(parseItem);
}

function parseUpTo(input: unknown): UpTo {
  const record = objectWith(input, ['topic', 'offset', 'member'], 'upTo');
  if (typeof record.topic !== 'string' || record.topic.length === 0) throw new MmmqValidationError('upTo.topic must be a topic name');
  if (record.offset === undefined) throw new MmmqValidationError('upTo.offset is required: the highest offset to acknowledge');
  const upTo: UpTo = { topic: record.topic, offset: integer('upTo.offset', record.offset, 0, 0, Number.MAX_SAFE_INTEGER) };
  if (record.member !== undefined) upTo.member = parsePullMember(record.member);
  return upTo;
}

/** `{"member"[, "leave": true]}`: with `leave`, the member also leaves the consumer's roster (it is shutting down). */
export function parseRecoverRequest(body: unknown): { member: string; leave: boolean } {
  const record = objectWith(body, ['member', 'leave']);
  if (record.member === undefined) throw new MmmqValidationError('member is required: the member whose leases to redeliver');
  if (record.leave !== undefined && typeof record.leave !== 'boolean') throw new MmmqValidationError('leave must be true or false');
  return { member: parsePullMember(record.member), leave: record.leave === true };
}

function parseItem(item: unknown, i: number): SettleItem {
  if (typeof item === 'string' && item.length > 0 && item.length <= 300) return { lease: item };
  if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
    const record = item as Record<string, unknown>;
    const keys = Object.keys(record).sort().join(',');
    if (
      keys === 'offset,topic' &&
      typeof record.topic === 'string' &&
      Number.isSafeInteger(record.offset) &&
      (record.offset as number) >= 0
    ) {
      return { topic: record.topic, offset: record.offset as number };
    }
    if (keys === 'id' && typeof record.id === 'string' && record.id.length > 0) return { id: record.id };
  }
  throw new MmmqValidationError(`leases[${i}] must be a lease token, {"topic","offset"} or {"id"}`);
}

function objectWith(body: unknown, known: string[], where = 'the body'): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new MmmqValidationError(`${where} must be a JSON object`);
  const unknown = Object.keys(body).filter((key) => !known.includes(key));
  if (unknown.length > 0)
    throw new MmmqValidationError(`unknown field(s) ${unknown.join(', ')}${where === 'the body' ? '' : ` in ${where}`}`);
  return body as Record<string, unknown>;
}

function integer(field: string, input: unknown, fallback: number, min: number, max: number): number {
  if (input === undefined) return fallback;
  if (typeof input === 'number' && Number.isSafeInteger(input) && input >= min && input <= max) return input;
  throw new MmmqValidationError(`${field} must be an integer from ${min} to ${max}, got ${JSON.stringify(input)}`);
}
