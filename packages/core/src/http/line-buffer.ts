import { StringDecoder } from 'node:string_decoder';

/** Splits a streamed body into lines as its chunks arrive; a last line without its newline counts once it ends. */
export class LineBuffer {
  private rest = '';
  /** A character split between two chunks is decoded once both are in. */
  private readonly decoder = new StringDecoder('utf8');

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Buffer): void {
    const text = this.rest + this.decoder.write(chunk);
    let start = 0;
    for (let end = text.indexOf('\n', start); end >= 0; end = text.indexOf('\n', start)) {
      this.onLine(text.slice(start, end));
      start = end + 1;
    }
    this.rest = text.slice(start);
  }

  /** The body ended: its last line, when it had no newline, is handed over now. */
  end(): void {
    const last = this.rest + this.decoder.end();
    this.rest = '';
    if (last.trim() !== '') this.onLine(last);
  }
}
