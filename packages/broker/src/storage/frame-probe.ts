import { FRAME_HEADER_BYTES, frameChecksumMatches, frameSizeAt } from './entry-frame';
import { FileHandle } from './file-handle';

/** Bytes read at once while recovery walks a data file; a larger frame is read whole on its own. */
export const FRAME_PROBE_WINDOW_BYTES = 1024 * 1024;

/**
 * A scan for the next intact frame checksums at most this many times the data file's size plus the bytes it scanned:
 * it keeps a scan through damage linear in the data's size.
 */
export const FRAME_SCAN_CHECKSUM_FACTOR = 4;

/**
 * What the bytes at one address of a data file hold. `size` is the frame size its length field declares when
 * that frame fits inside the file (whether or not its checksum matches), else -1.
 */
export interface FrameCheck {
  valid: boolean;
  size: number;
}

const NO_FRAME: FrameCheck = { valid: false, size: -1 };

/**
 * Checks frames of a data file (length field + CRC32C) at any address, for recovery. A walk through the file
 * reads ahead through a window of {@link FRAME_PROBE_WINDOW_BYTES}, so it reads each byte about once and holds at
 * most a window or one frame in memory, however large the segment; a probe elsewhere reads only its own frame.
 */
export class FrameProbe {
  #window: Buffer = Buffer.alloc(0);
  #windowStart = 0;

  constructor(private readonly data: FileHandle) {}

  /** Bytes in the data file. */
  get dataSize(): number {
    return this.data.size;
  }

  /**
   * Checks the frame at `address` without waiting when the window already holds it (walking a file of small
   * frames, most checks), else returns undefined.
   */
  checkBuffered(address: number): FrameCheck | undefined {
    if (address < 0 || address + FRAME_HEADER_BYTES > this.dataSize) return NO_FRAME;
    const from = address - this.#windowStart;
    if (from < 0 || from + FRAME_HEADER_BYTES > this.#window.length) return undefined;
    const size = frameSizeAt(this.#window, from);
    if (size < 0 || address + size > this.dataSize) return NO_FRAME;
    if (from + size > this.#window.length) return undefined;
    return { valid: frameChecksumMatches(this.#window, from, size), size };
  }

  /** Checks the frame at `address`; `readAhead` when the next check will most likely be at the frame's end. */
  async check(address: number, readAhead = true): Promise<FrameCheck> {
    if (address < 0 || address + FRAME_HEADER_BYTES > this.dataSize) return NO_FRAME;
    const size = frameSizeAt(await this.bytes(address, FRAME_HEADER_BYTES, readAhead), 0);
    if (size < 0 || address + size > this.dataSize) return NO_FRAME;
    return { valid: frameChecksumMatches(await this.bytes(address, size, readAhead), 0, size), size };
  }

  /**
   * The first address at or after `from` that holds an intact frame ending at or before `end` (the data's end by
   * default), or undefined when none does: a byte-by-byte
   * scan through the read window that computes a checksum only where the length field fits the file. Any byte can
   * look like a length field (the bytes just after a real frame header read as a frame of kilobytes to megabytes),
   * so checksums are bounded by {@link FRAME_SCAN_CHECKSUM_FACTOR}; a candidate larger than what is left is passed over
   * unchecked.
   */
  async findIntactFrame(from: number, end = this.dataSize): Promise<number | undefined> {
    let allowance = FRAME_SCAN_CHECKSUM_FACTOR * this.dataSize;
    for (let address = Math.max(from, 0); address + FRAME_HEADER_BYTES <= end; address++) {
      allowance += FRAME_SCAN_CHECKSUM_FACTOR;
      const at = address - this.#windowStart;
      const header =
        at >= 0 && at + FRAME_HEADER_BYTES <= this.#window.length
          ? frameSizeAt(this.#window, at)
          : frameSizeAt(await this.bytes(address, FRAME_HEADER_BYTES, true), 0);
      if (header < 0 || address + header > end || header > allowance) continue;
      allowance -= header;
      if (frameChecksumMatches(await this.bytes(address, header, true), 0, header)) return address;
    }
    return undefined;
  }

  /** `length` bytes at `address` (inside the file), from the window when it holds them. */
  private async bytes(address: number, length: number, readAhead: boolean): Promise<Buffer> {
    const from = address - this.#windowStart;
    if (from >= 0 && from + length <= this.#window.length) return this.#window.subarray(from, from + length);
    if (!readAhead) return this.data.read(address, length);
    const windowLength = Math.min(Math.max(length, FRAME_PROBE_WINDOW_BYTES), this.dataSize - address);
    this.#window = await this.data.read(address, windowLength);
    this.#windowStart = address;
    return this.#window.subarray(0, length);
  }
}
