import { type ConsumerAcknowledgement, isConsumerAcknowledgement } from '../acknowledgement';
import { MmmqError } from '../errors/mmmq-error';
import { parseReply } from '../reply/reply';
import { LineBuffer } from './line-buffer';

/**
 * The media type of a streamed batch reply: one JSON line per message, `{"index":i,"acknowledgement":…}`, written as
 * each handler finishes (docs/http-api.md, "Streamed settlement"). The broker asks for it with `Accept`; a consumer
 * that answers plain JSON at the end is as good.
 */
export const SETTLEMENT_STREAM_TYPE = 'application/x-ndjson';

/** What the broker sends as `Accept` with a batched push: a streamed reply, or the whole batch's JSON. */
export const BATCH_REPLY_ACCEPT = `${SETTLEMENT_STREAM_TYPE}, application/json`;

/** A streamed reply that is not one: a line that is not JSON, no acknowledgement, an index out of the batch. */
export class SettlementStreamError extends MmmqError {}

/** The common line, around its index: written and read without JSON's general machinery (thousands a second). */
const ACK_HEAD = '{"index":';
const ACK_TAIL = ',"acknowledgement":"ACK"}';
const PLAIN_ACK: ConsumerAcknowledgement = Object.freeze({ acknowledgement: 'ACK' });

/** One line of a streamed reply: the acknowledgement of the batch's message `index` (from 0), newline-terminated. */
export function settlementLine(index: number, acknowledgement: ConsumerAcknowledgement): string {
  if (acknowledgement.acknowledgement === 'ACK' && Object.keys(acknowledgement).length === 1) return `${ACK_HEAD}${index}${ACK_TAIL}\n`;
  return `${JSON.stringify({ index, ...acknowledgement })}\n`;
}

/** The acknowledgement a checked line carries, without its place (`index`, `part`), its reply checked. */
export function lineAcknowledgement(parsed: ConsumerAcknowledgement): ConsumerAcknowledgement {
  const { acknowledgement, message, retry, delayMs, reply } = parsed;
  return checkedReply({ acknowledgement, message, retry, delayMs, reply });
}

/**
 * An acknowledgement whose carried `reply` is checked whole: one that is not a reply turns it into a NACK, so that
 * nothing is relayed and the request is delivered, and answered, again (as when a consumer's reply request fails).
 */
export function checkedReply(acknowledgement: ConsumerAcknowledgement): ConsumerAcknowledgement {
  if (acknowledgement.reply === undefined) return acknowledgement;
  try {
    return { ...acknowledgement, reply: parseReply(acknowledgement.reply) };
  } catch (error) {
    return { acknowledgement: 'NACK', message: `the reply it carried is not one: ${(error as Error).message}` };
  }
}

/** Whether a request for a batch accepts a streamed reply. */
export function acceptsSettlementStream(accept: string | string[] | undefined): boolean {
  const value = Array.isArray(accept) ? accept.join(',') : accept;
  return value !== undefined && value.toLowerCase().includes(SETTLEMENT_STREAM_TYPE);
}

/**
 * Reads a streamed reply chunk by chunk and hands over each message's acknowledgement as its line completes; the
 * first for an index counts, a later one is ignored. {@link end} says which indexes got none.
 */
export class SettlementStreamParser {
  private readonly lines = new LineBuffer((line) => this.line(line));
  private readonly settled: boolean[];
  private count = 0;

  constructor(
    private readonly size: number,
    private readonly onSettled: (index: number, acknowledgement: ConsumerAcknowledgement) => void,
  ) {
    this.settled = new Array<boolean>(size).fill(false);
  }

  /** Messages settled so far (each counted once). */
  get settledCount(): number {
    return this.count;
  }

  /** @throws SettlementStreamError for a line that is not a settlement of this batch */
  push(chunk: Buffer): void {
    this.lines.push(chunk);
  }

  /** The indexes no line settled, once the reply ended. @throws SettlementStreamError for a cut-off last line */
  end(): number[] {
    this.lines.end();
    const missing: number[] = [];
    if (this.count === this.size) return missing;
    this.settled.forEach((done, index) => done || missing.push(index));
    return missing;
  }

  private line(text: string): void {
    if (text.startsWith(ACK_HEAD) && text.endsWith(ACK_TAIL) && text.length > ACK_HEAD.length + ACK_TAIL.length) {
      const index = Number(text.slice(ACK_HEAD.length, -ACK_TAIL.length));
      if (Number.isInteger(index) && index >= 0 && index < this.size) return this.settle(index, PLAIN_ACK);
    }
    if (text.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new SettlementStreamError(`a line of the streamed reply is not JSON: ${text.slice(0, 100)}`);
    }
    const index = (parsed as { index?: unknown })?.index;
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= this.size || !isConsumerAcknowledgement(parsed)) {
      throw new SettlementStreamError(`a line of the streamed reply settles no message of the ${this.size} pushed: ${text.slice(0, 100)}`);
    }
    this.settle(index as number, lineAcknowledgement(parsed as ConsumerAcknowledgement));
  }

  private settle(index: number, acknowledgement: ConsumerAcknowledgement): void {
    if (this.settled[index]) return;
    this.settled[index] = true;
    this.count++;
    this.onSettled(index, acknowledgement);
  }
}
