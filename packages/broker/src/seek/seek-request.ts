import { MmmqValidationError, parseSeekPosition, SeekPosition, Topic } from '@mmmq/core';
import { parsePullMember } from '../pull/pull-requests';

/** `POST /mmmq/consumers/{id}/seek`: where to, which topic (all of the consumer's when absent), and how. */
export interface SeekRequest {
  topic?: string;
  to: SeekPosition;
  /** Only count what it would re-deliver and skip; change nothing. */
  dryRun: boolean;
  /** Seek even while another member holds the exclusive subscription. */
  force: boolean;
  /** The caller's member id: the exclusive subscription it holds itself does not refuse it. */
  member?: string;
}

const FIELDS = new Set(['topic', 'to', 'dryRun', 'force', 'member']);

/** @throws MmmqValidationError naming the field */
export function parseSeekRequest(body: unknown): SeekRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new MmmqValidationError('the body must be a JSON object');
  const record = body as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => !FIELDS.has(key));
  if (unknown.length > 0) throw new MmmqValidationError(`unknown field(s) ${unknown.join(', ')}; allowed are ${[...FIELDS].join(', ')}`);
  if (record.to === undefined) throw new MmmqValidationError('to is required: "beginning", "end", {"offset": n} or {"time": "<ISO 8601>"}');
  const request: SeekRequest = {
    to: parseSeekPosition('to', record.to),
    dryRun: flag('dryRun', record.dryRun),
    force: flag('force', record.force),
  };
  if (record.topic !== undefined) request.topic = Topic.of(record.topic).name;
  if (record.member !== undefined) request.member = parsePullMember(record.member);
  return request;
}

function flag(field: string, input: unknown): boolean {
  if (input === undefined) return false;
  if (typeof input === 'boolean') return input;
  throw new MmmqValidationError(`${field} must be true or false, got ${JSON.stringify(input)}`);
}
