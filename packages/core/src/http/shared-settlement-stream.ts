import { type ConsumerAcknowledgement, isConsumerAcknowledgement } from '../acknowledgement';
import { lineAcknowledgement, SettlementStreamError } from './settlement-stream';
import { LineBuffer } from './line-buffer';

/** The common line, around its part and index: written and read without JSON's general machinery. */
const PART_HEAD = '{"part":';
const INDEX_HEAD = ',"index":';
const ACK_TAIL = ',"acknowledgement":"ACK"}';
const PLAIN_ACK: ConsumerAcknowledgement = Object.freeze({ acknowledgement: 'ACK' });

/** One line of a shared push's streamed reply: the acknowledgement of message `index` of part `part`. */
export function sharedSettlementLine(part: number, index: number, acknowledgement: ConsumerAcknowledgement): string {
  if (acknowledgement.acknowledgement === 'ACK' && Object.keys(acknowledgement).length === 1) {
    return `${PART_HEAD}${part}${INDEX_HEAD}${index}${ACK_TAIL}\n`;
  }
  return `${JSON.stringify({ part, index, ...acknowledgement })}\n`;
}

/**
 * One line refusing a whole part of a shared push with the status a push of that part alone would have got (503: not
 * taken now; 404: no listener here takes pushes for its consumer id; 500: its handler was abandoned).
 */
export function sharedRefusalLine(part: number, status: number, message: string): string {
  return `${JSON.stringify({ part, status, message })}\n`;
}

/** What a shared reply's lines are handed to. */
export interface SharedSettlementHandlers {
  settled(part: number, index: number, acknowledgement: ConsumerAcknowledgement): void;
  refused(part: number, status: number, message: string): void;
}

/**
 * Reads the streamed reply to a shared push chunk by chunk (docs/http-api.md, "Shared pushes"): each message's
 * acknowledgement, and each part refused whole, is handed over as its line completes; the first line for a message
 * or a part counts, a later one is ignored.
 */
export class SharedSettlementParser {
  private readonly lines = new LineBuffer((line) => this.line(line));
  private readonly settled: boolean[][];
  private readonly closed: boolean[];
  private count = 0;

  constructor(
    sizes: readonly number[],
    private readonly handlers: SharedSettlementHandlers,
  ) {
    this.settled = sizes.map((size) => new Array<boolean>(size).fill(false));
    this.closed = sizes.map(() => false);
  }

  /** Messages settled so far, those of refused parts included (each counted once). */
  get settledCount(): number {
    return this.count;
  }

  /** @throws SettlementStreamError for a line that settles nothing of this push */
  push(chunk: Buffer): void {
    this.lines.push(chunk);
  }

  /** The reply ended. @throws SettlementStreamError for a cut-off last line */
  end(): void {
    this.lines.end();
  }

  private line(text: string): void {
    if (text.startsWith(PART_HEAD) && text.endsWith(ACK_TAIL)) {
      const middle = text.slice(PART_HEAD.length, -ACK_TAIL.length);
      const comma = middle.indexOf(INDEX_HEAD);
      if (comma > 0) {
        const part = Number(middle.slice(0, comma));
        const index = Number(middle.slice(comma + INDEX_HEAD.length));
        if (this.isMessage(part, index)) return this.settle(part, index, PLAIN_ACK);
      }
    }
    if (text.trim() === '') return;
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new SettlementStreamError(`a line of the shared reply is not JSON: ${text.slice(0, 100)}`);
    }
    const part = parsed?.part as number;
    if (parsed?.index === undefined && Number.isInteger(parsed?.status) && this.isPart(part)) {
      return this.refuse(part, parsed.status as number, typeof parsed.message === 'string' ? parsed.message : '');
    }
    const index = parsed?.index as number;
    if (!this.isMessage(part, index) || !isConsumerAcknowledgement(parsed)) {
      throw new SettlementStreamError(`a line of the shared reply settles no message of the push: ${text.slice(0, 100)}`);
    }
    this.settle(part, index, lineAcknowledgement(parsed as unknown as ConsumerAcknowledgement));
  }

  private isPart(part: number): boolean {
    return Number.isInteger(part) && part >= 0 && part < this.settled.length;
  }

  private isMessage(part: number, index: number): boolean {
    return this.isPart(part) && Number.isInteger(index) && index >= 0 && index < this.settled[part].length;
  }

  private settle(part: number, index: number, acknowledgement: ConsumerAcknowledgement): void {
    if (this.closed[part] || this.settled[part][index]) return;
    this.settled[part][index] = true;
    this.count++;
    this.handlers.settled(part, index, acknowledgement);
  }

  private refuse(part: number, status: number, message: string): void {
    if (this.closed[part]) return;
    this.closed[part] = true;
    this.count++;
    this.handlers.refused(part, status, message);
  }
}
