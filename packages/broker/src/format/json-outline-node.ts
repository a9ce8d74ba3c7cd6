/** What kind of JSON value an outline node spans. */
export type JsonValueKind = 'object' | 'array' | 'scalar';

/**
 * One value of the shallow outline a {@link scanJson} pass records: where its bytes are, and for containers
 * whose children were recorded, those children. Spans are byte offsets into the scanned buffer, `[start, end)`.
 */
export class JsonOutlineNode {
  /** Set when the value closes; a node of a truncated document keeps -1. */
  end = -1;
  /** Object members in document order; a repeated key keeps its last value, as `JSON.parse` does. */
  readonly members: Map<string, JsonOutlineNode> | undefined;
  readonly elements: JsonOutlineNode[] | undefined;

  constructor(
    readonly kind: JsonValueKind,
    readonly start: number,
  ) {
    this.members = kind === 'object' ? new Map() : undefined;
    this.elements = kind === 'array' ? [] : undefined;
  }

  /** The member's node, or undefined when this is not an object or has no such key. */
  member(key: string): JsonOutlineNode | undefined {
    return this.members?.get(key);
  }
}
