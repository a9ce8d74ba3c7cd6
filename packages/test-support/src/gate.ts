/** A promise a test opens by hand, to hold a handler in flight for as long as the test needs. */
export class Gate {
  readonly promise: Promise<void>;
  private release!: () => void;

  constructor() {
    this.promise = new Promise<void>((resolve) => (this.release = resolve));
  }

  open(): void {
    this.release();
  }
}
