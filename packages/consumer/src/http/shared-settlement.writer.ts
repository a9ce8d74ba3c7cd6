import { type ConsumerAcknowledgement, SETTLEMENT_STREAM_TYPE, sharedRefusalLine, sharedSettlementLine } from '@mmmq/core';
import type { ServerResponse } from 'node:http';

/**
 * Answers a shared push as a stream (docs/http-api.md, "Shared pushes"): `200` of `application/x-ndjson` once its
 * body is parsed, then one line per message as its handler finishes, or one line refusing a part whole (503, 404,
 * 500). Lines of one turn of the event loop go out as one chunk; the reply ends once every part is answered.
 */
export class SharedSettlementWriter {
  private started = false;
  private readonly written: boolean[][];
  private pending = '';
  private flushing?: NodeJS.Immediate;
  private ended = false;

  constructor(
    private readonly response: ServerResponse,
    sizes: readonly number[],
    /** Asked when the stream starts: true closes the connection after it (the server is closing). */
    private readonly hangUp: () => boolean,
  ) {
    this.written = sizes.map((size) => new Array<boolean>(size).fill(false));
  }

  /** A handler finished: its line goes out with the others of this moment. */
  settled(part: number, index: number, acknowledgement: ConsumerAcknowledgement): void {
    if (this.ended || this.written[part][index]) return;
    this.written[part][index] = true;
    this.write(sharedSettlementLine(part, index, acknowledgement));
  }

  /** A part's handlers are done: the lines of its messages not written yet. */
  answered(part: number, acknowledgements: readonly ConsumerAcknowledgement[]): void {
    acknowledgements.forEach((acknowledgement, index) => this.settled(part, index, acknowledgement));
  }

  /** A part refused whole, with the status a push of it alone would have got; its messages not settled go back. */
  refused(part: number, status: number, message: string): void {
    if (this.ended) return;
    this.written[part].fill(true);
    this.write(sharedRefusalLine(part, status, message));
  }

  /** Every part is answered: the lines not written yet go out with the end of the reply. */
  finish(): void {
    if (this.ended) return;
    this.ended = true;
    clearImmediate(this.flushing);
    this.flushing = undefined;
    // Shutdown answered the push already (503, HttpShutdownGate), or the broker gave up on it: nothing to write to.
    if ((!this.started && this.response.headersSent) || this.response.destroyed) return;
    this.start();
    this.response.end(this.pending);
    this.pending = '';
  }

  private write(line: string): void {
    if (!this.started && this.response.headersSent) return;
    this.pending += line;
    this.flushing ??= setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushing = undefined;
    if (this.pending === '' || this.response.destroyed) return;
    this.start();
    this.response.write(this.pending);
    this.pending = '';
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    if (this.hangUp()) this.response.shouldKeepAlive = false;
    this.response.writeHead(200, { 'Content-Type': `${SETTLEMENT_STREAM_TYPE}; charset=utf-8` });
  }
}
