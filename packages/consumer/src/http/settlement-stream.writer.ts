import { type ConsumerAcknowledgement, SETTLEMENT_STREAM_TYPE, settlementLine, writeJson } from '@mmmq/core';
import type { ServerResponse } from 'node:http';
import type { PushAnswer } from './push-answer';

/**
 * Answers a batched push as a stream (docs/http-api.md, "Streamed settlement"): the first settled message starts a
 * `200` reply of `application/x-ndjson`, and each handler's acknowledgement is written as one line as it finishes,
 * so the broker settles it then and a crash re-runs only the handler that was running. Lines settled in one turn of
 * the event loop go out as one chunk; a batch handled whole within one turn is answered with plain JSON. A push refused
 * before any handler finished (503, 401, 413, …) is answered as JSON, as ever; one that fails after the stream
 * started is cut off (the broker gives back what no line settled).
 */
export class SettlementStreamWriter {
  private started = false;
  private readonly written: boolean[];
  private pending = '';
  private flushing?: NodeJS.Immediate;
  private ended = false;

  constructor(
    private readonly response: ServerResponse,
    size: number,
    /** Asked when the stream starts: true closes the connection after it (the server is closing). */
    private readonly hangUp: () => boolean,
  ) {
    this.written = new Array<boolean>(size).fill(false);
  }

  /** A handler finished: its line goes out with the others of this moment. */
  settled(index: number, acknowledgement: ConsumerAcknowledgement): void {
    if (this.ended || this.written[index]) return;
    // Shutdown answered the push already (503, HttpShutdownGate): there is no stream to write to.
    if (!this.started && this.response.headersSent) return;
    this.written[index] = true;
    this.pending += settlementLine(index, acknowledgement);
    this.flushing ??= setImmediate(() => this.flush());
  }

  /**
   * The push's answer. Before any line went out (the whole batch was handled within one turn of the event loop, or it
   * was refused), it is answered as JSON: one write, as a consumer that does not stream. After, the lines not written
   * yet close the stream in one write with its end; a failure cuts it off.
   */
  finish(answer: PushAnswer): void {
    this.ended = true;
    clearImmediate(this.flushing);
    this.flushing = undefined;
    const { body } = answer;
    const whole = answer.status === 200 && 'acknowledgements' in body;
    if (!this.started && (whole || this.pending === '')) {
      if (this.response.headersSent) return;
      if (this.hangUp()) this.response.shouldKeepAlive = false;
      writeJson(this.response, answer.status, answer.body, answer.headers);
      return;
    }
    if (!whole) {
      // The status went out with the first line: cutting the reply off is how a failure is told now.
      this.flush();
      this.response.destroy();
      return;
    }
    body.acknowledgements.forEach((acknowledgement, index) => {
      if (this.written[index]) return;
      this.written[index] = true;
      this.pending += settlementLine(index, acknowledgement);
    });
    this.response.end(this.pending);
    this.pending = '';
  }

  private flush(): void {
    this.flushing = undefined;
    if (this.pending === '' || this.response.destroyed) return;
    if (!this.started) {
      this.started = true;
      if (this.hangUp()) this.response.shouldKeepAlive = false;
      this.response.writeHead(200, { 'Content-Type': `${SETTLEMENT_STREAM_TYPE}; charset=utf-8` });
    }
    this.response.write(this.pending);
    this.pending = '';
  }
}
