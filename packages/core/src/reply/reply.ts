import { describeValue } from '../errors/describe-value';
import { InvalidMessageError } from '../errors/invalid-message-error';
import { REPLY_HEADERS } from './reply-headers';

/** A reply inbox or correlation id: as a message id, but shorter and without characters a URL path would escape. */
const REPLY_ADDRESS = /^[A-Za-z0-9._:-]{1,128}$/;
/** The longest `error.name` / `error.message` a reply carries; what a handler's error says beyond that is cut. */
export const REPLY_ERROR_TEXT_MAX_LENGTH = 4096;

/**
 * Where an error carries JSON details for the requester beside its name and message: a Nest microservice's handler
 * error as its exception filter answered it (`{ status: 'error', message }`), which a Nest client receives as `err`.
 * A registered symbol, so that two copies of this package agree on it.
 */
export const REPLY_ERROR_DATA: unique symbol = Symbol.for('@mmmq/core:reply-error-data') as never;

/** Why a request failed on the replier's side, as the requester sees it: never a stack trace. */
export interface ReplyErrorBody {
  /** The error's class name (`NotFoundException`, `RpcException`, `Error`). */
  name: string;
  message: string;
  /** JSON details the error carried under {@link REPLY_ERROR_DATA}, if any. */
  data?: unknown;
}

/** The answer to one request: the handler's result (`content`, absent for `undefined`), or its `error`. */
export interface Reply {
  inbox: string;
  correlationId: string;
  content?: unknown;
  error?: ReplyErrorBody;
}

/** Where the reply to a delivered message goes, if it is a request: both reply headers valid, else undefined. */
export function replyAddressOf(
  headers: Readonly<Record<string, unknown>> | undefined,
): { inbox: string; correlationId: string } | undefined {
  const inbox = headers?.[REPLY_HEADERS.replyTo];
  const correlationId = headers?.[REPLY_HEADERS.correlationId];
  if (!isReplyAddress(inbox) || !isReplyAddress(correlationId)) return undefined;
  return { inbox, correlationId };
}

export function isReplyAddress(value: unknown): value is string {
  return typeof value === 'string' && REPLY_ADDRESS.test(value);
}

/** What a failed handler's error becomes in a reply: its name and message, cut to a bounded length. */
export function replyErrorOf(error: unknown): ReplyErrorBody {
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : describeValue(error);
  const body = { name: name.slice(0, REPLY_ERROR_TEXT_MAX_LENGTH), message: message.slice(0, REPLY_ERROR_TEXT_MAX_LENGTH) };
  const data = typeof error === 'object' && error !== null ? (error as { [REPLY_ERROR_DATA]?: unknown })[REPLY_ERROR_DATA] : undefined;
  return data === undefined ? body : { ...body, data: jsonOf(data) };
}

/** `value` as it reads back from JSON; undefined when it is not JSON. */
function jsonOf(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/**
 * Checks a reply as received over the wire.
 * @throws InvalidMessageError naming the first bad field
 */
export function parseReply(value: unknown): Reply {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidMessageError(`A reply must be a JSON object, got ${describeValue(value)}`);
  }
  const { inbox, correlationId, content, error, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new InvalidMessageError(`A reply has unknown field(s) ${unknown.join(', ')}`);
  if (!isReplyAddress(inbox)) throw new InvalidMessageError(`Reply field "inbox" must match ${REPLY_ADDRESS}, got ${describeValue(inbox)}`);
  if (!isReplyAddress(correlationId)) {
    throw new InvalidMessageError(`Reply field "correlationId" must match ${REPLY_ADDRESS}, got ${describeValue(correlationId)}`);
  }
  if (error === undefined) return content === undefined ? { inbox, correlationId } : { inbox, correlationId, content };
  if (content !== undefined) throw new InvalidMessageError('A reply has either "content" or "error", not both');
  const { name, message, data } = (error ?? {}) as Record<string, unknown>;
  if (typeof name !== 'string' || typeof message !== 'string') {
    throw new InvalidMessageError(`Reply field "error" must be { name: string, message: string, data? }, got ${describeValue(error)}`);
  }
  return { inbox, correlationId, error: replyErrorOf(Object.assign(new Error(message), { name, [REPLY_ERROR_DATA]: data })) };
}
