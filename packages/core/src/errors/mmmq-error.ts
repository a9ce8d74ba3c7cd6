/**
 * Root of every error MMMQ throws on purpose, so callers can tell our failures from bugs and
 * from errors raised by Node or NestJS with a single `instanceof` check.
 */
export class MmmqError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    // `new.target` rather than a literal so every subclass reports its own name without
    // repeating this line.
    this.name = new.target.name;
  }
}
