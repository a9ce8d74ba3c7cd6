/**
 * Bytes of text gathered before they are cut into a chunk of the response: large enough that a scrape is a few dozen
 * chunks, small enough that encoding one (and the socket write after it) is a small part of a turn.
 */
export const EXPOSITION_CHUNK_BYTES = 64 * 1024;

/**
 * The exposition text, gathered piece by piece and cut into encoded chunks as it grows: a scrape of 1,000 topics'
 * series is ~3 MB, which as one string (joined, hashed for an ETag, encoded) held the event loop several ms.
 */
export class ExpositionText {
  private readonly done: Buffer[] = [];
  private pieces: string[] = [];
  private length = 0;

  add(piece: string): void {
    this.pieces.push(piece);
    this.length += piece.length;
    if (this.length >= EXPOSITION_CHUNK_BYTES) this.cut();
  }

  /** The text so far, in chunks of about {@link EXPOSITION_CHUNK_BYTES}. */
  chunks(): Buffer[] {
    this.cut();
    return this.done;
  }

  private cut(): void {
    if (this.pieces.length === 0) return;
    this.done.push(Buffer.from(this.pieces.join(''), 'utf8'));
    this.pieces = [];
    this.length = 0;
  }
}
