import { JsonOutlineNode } from './json-outline-node';

export interface JsonScanOptions {
  /** Scanning stops as soon as more than this many objects/arrays are open at once. */
  maxDepth: number;
  /**
   * How many levels below the root get outline nodes: 0 records only the root, 1 also the root's members or
   * elements, and so on. Deeper values are skipped without allocating anything.
   */
  outlineLevels: number;
}

export interface JsonScan {
  /** The deepest nesting seen (open objects + arrays); `maxDepth + 1` when the scan stopped early. */
  depth: number;
  /** True when nesting exceeded `maxDepth`; the outline is then incomplete. */
  tooDeep: boolean;
  /** Outline of the document's shallow levels; undefined for an empty or blank buffer. */
  root: JsonOutlineNode | undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

const SPACE = 0x20;
const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** Bytes that end a number / true / false / null literal. */
const ENDS_LITERAL = new Uint8Array(256);
for (const byte of [SPACE, TAB, LINE_FEED, CARRIAGE_RETURN, COMMA, COLON, QUOTE]) ENDS_LITERAL[byte] = 1;
for (const byte of [OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY]) ENDS_LITERAL[byte] = 1;

/**
 * One pass over UTF-8 JSON bytes that measures nesting depth and records where the shallow values are, so a
 * payload can be sliced out verbatim instead of being re-serialised.
 *
 * The depth check runs before `JSON.parse`: a hostile document is refused without building its value, and
 * values that would overflow the stack of whatever walks them later (`JSON.stringify`, validators, consumers)
 * never get in. Levels it does not outline cost a counter, nothing more. It does not validate syntax: spans
 * are exact for valid JSON, and callers run `JSON.parse` to reject everything else.
 */
export function scanJson(bytes: Buffer, options: JsonScanOptions): JsonScan {
  const outline = new OutlineBuilder(options.outlineLevels);
  const length = bytes.length;
  let depth = 0;
  let deepest = 0;
  let position = 0;
  while (position < length) {
    const byte = bytes[position];
    switch (byte) {
      case SPACE:
      case TAB:
      case LINE_FEED:
      case CARRIAGE_RETURN:
      case COLON:
        position++;
        break;
      case COMMA:
        outline.separator(depth);
        position++;
        break;
      case QUOTE: {
        const end = stringEnd(bytes, position);
        outline.string(bytes, depth, position, end);
        position = end;
        break;
      }
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        outline.open(byte === OPEN_OBJECT ? 'object' : 'array', depth, position);
        depth++;
        if (depth > deepest) {
          deepest = depth;
          if (depth > options.maxDepth) return { depth, tooDeep: true, root: outline.root };
        }
        position++;
        break;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        // An unbalanced close is a syntax error that JSON.parse reports; there is nothing more to outline.
        if (depth === 0) return { depth: deepest, tooDeep: false, root: outline.root };
        depth--;
        outline.close(depth, position + 1);
        position++;
        break;
      default: {
        const end = literalEnd(bytes, position);
        outline.literal(depth, position, end);
        position = end;
      }
    }
  }
  return { depth: deepest, tooDeep: false, root: outline.root };
}

/** Tracks the open containers of the outlined levels and hangs each new value on its parent. */
class OutlineBuilder {
  root: JsonOutlineNode | undefined;
  /** The container open at each outlined level. */
  private readonly containers: JsonOutlineNode[];
  /** Whether the next string at the level below is a key (only meaningful for objects). */
  private readonly awaitingKey: Uint8Array;
  private readonly pendingKey: string[];

  constructor(private readonly levels: number) {
    this.containers = new Array<JsonOutlineNode>(levels + 1);
    this.awaitingKey = new Uint8Array(levels + 1);
    this.pendingKey = new Array<string>(levels + 1).fill('');
  }

  /** A value starting at `level` gets a node only when that level is outlined. */
  open(kind: 'object' | 'array', level: number, start: number): void {
    if (level > this.levels) return;
    const node = new JsonOutlineNode(kind, start);
    this.attach(node, level);
    this.containers[level] = node;
    this.awaitingKey[level] = kind === 'object' ? 1 : 0;
  }

  close(level: number, end: number): void {
    if (level <= this.levels) this.containers[level].end = end;
  }

  separator(depth: number): void {
    if (this.recordsChildrenOf(depth) && this.containers[depth - 1].kind === 'object') this.awaitingKey[depth - 1] = 1;
  }

  string(bytes: Buffer, depth: number, start: number, end: number): void {
    if (this.recordsChildrenOf(depth) && this.awaitingKey[depth - 1] === 1) {
      this.pendingKey[depth - 1] = decodeKey(bytes, start, end);
      this.awaitingKey[depth - 1] = 0;
      return;
    }
    this.literal(depth, start, end);
  }

  literal(level: number, start: number, end: number): void {
    if (level > this.levels) return;
    const node = new JsonOutlineNode('scalar', start);
    node.end = end;
    this.attach(node, level);
  }

  /** True when values at `depth` sit directly inside an outlined container. */
  private recordsChildrenOf(depth: number): boolean {
    return depth > 0 && depth <= this.levels;
  }

  private attach(node: JsonOutlineNode, level: number): void {
    if (level === 0) {
      this.root ??= node;
      return;
    }
    const parent = this.containers[level - 1];
    if (parent.members) parent.members.set(this.pendingKey[level - 1], node);
    else parent.elements?.push(node);
  }
}

/** Index just past the closing quote of the string opening at `quote`, or the buffer length if unterminated. */
function stringEnd(bytes: Buffer, quote: number): number {
  let search = quote + 1;
  for (;;) {
    const candidate = bytes.indexOf(QUOTE, search);
    if (candidate < 0) return bytes.length;
    let backslashes = 0;
    for (let i = candidate - 1; i > quote && bytes[i] === BACKSLASH; i--) backslashes++;
    if ((backslashes & 1) === 0) return candidate + 1;
    search = candidate + 1;
  }
}

function literalEnd(bytes: Buffer, start: number): number {
  let position = start + 1;
  while (position < bytes.length && ENDS_LITERAL[bytes[position]] === 0) position++;
  return position;
}

/** Keys are compared after unescaping, as `JSON.parse` would see them (`"\u0074opic"` is `topic`). */
function decodeKey(bytes: Buffer, start: number, end: number): string {
  let escaped = false;
  for (let i = start + 1; i < end - 1 && !escaped; i++) escaped = bytes[i] === BACKSLASH;
  if (!escaped) return bytes.toString('utf8', start + 1, end - 1);
  try {
    return JSON.parse(bytes.toString('utf8', start, end)) as string;
  } catch {
    // A malformed escape makes the whole document invalid; the caller's JSON.parse reports it.
    return bytes.toString('utf8', start + 1, end - 1);
  }
}
