import fc from 'fast-check';
import { JsonOutlineNode } from '../../src/format/json-outline-node';
import { scanJson } from '../../src/format/json-scanner';
import { spelledJson } from './json-text.arbitrary';

const UNLIMITED = { maxDepth: Number.MAX_SAFE_INTEGER, outlineLevels: 1 };

function slice(bytes: Buffer, node: JsonOutlineNode | undefined): string {
  if (!node) throw new Error('no such node');
  return bytes.toString('utf8', node.start, node.end);
}

function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + children.reduce<number>((deepest, child) => Math.max(deepest, depthOf(child)), 0);
}

describe('scanJson', () => {
  it('measures nesting as the most objects and arrays open at once', () => {
    expect(scanJson(Buffer.from('1'), UNLIMITED).depth).toBe(0);
    expect(scanJson(Buffer.from('{"a":[1,{"b":[]}],"c":{}}'), UNLIMITED).depth).toBe(4);
    expect(scanJson(Buffer.from('["]]]]", "\\"[[["]'), UNLIMITED).depth).toBe(1);
  });

  it('stops as soon as nesting passes the limit', () => {
    const hostile = Buffer.from('['.repeat(1_000_000));
    const scan = scanJson(hostile, { maxDepth: 64, outlineLevels: 1 });
    expect(scan).toMatchObject({ tooDeep: true, depth: 65 });
  });

  it('accepts nesting exactly at the limit', () => {
    const scan = scanJson(Buffer.from('[[[1]]]'), { maxDepth: 3, outlineLevels: 0 });
    expect(scan).toMatchObject({ tooDeep: false, depth: 3 });
  });

  it('gives the byte span of every top-level member, whitespace excluded', () => {
    const bytes = Buffer.from('{ "topic" : "a.b" ,\n "content":\t{"x": ["}", "\\\\"]} , "n": -1.5e3 }');
    const root = scanJson(bytes, UNLIMITED).root;
    expect(root?.kind).toBe('object');
    expect(slice(bytes, root?.member('topic'))).toBe('"a.b"');
    expect(slice(bytes, root?.member('content'))).toBe('{"x": ["}", "\\\\"]}');
    expect(slice(bytes, root?.member('n'))).toBe('-1.5e3');
    expect([...(root?.members?.keys() ?? [])]).toEqual(['topic', 'content', 'n']);
  });

  it('counts bytes, not characters, for multi-byte UTF-8', () => {
    const bytes = Buffer.from('{"한국어":"ü","content":"😀"}');
    const content = scanJson(bytes, UNLIMITED).root?.member('content');
    expect(bytes.subarray(content?.start, content?.end)).toEqual(Buffer.from('"😀"'));
  });

  it('unescapes keys as JSON.parse does', () => {
    const bytes = Buffer.from('{"\\u0074opic":1}');
    expect(slice(bytes, scanJson(bytes, UNLIMITED).root?.member('topic'))).toBe('1');
  });

  it('keeps the last value of a repeated key, as JSON.parse does', () => {
    const bytes = Buffer.from('{"content":1,"content":[2]}');
    expect(slice(bytes, scanJson(bytes, UNLIMITED).root?.member('content'))).toBe('[2]');
  });

  it('outlines deeper levels when asked, and none beyond them', () => {
    const bytes = Buffer.from('{"messages":[{"content":{"deep":{}}},{"content":2}]}');
    const root = scanJson(bytes, { maxDepth: 10, outlineLevels: 3 }).root;
    const messages = root?.member('messages')?.elements ?? [];
    expect(messages.map((message) => slice(bytes, message.member('content')))).toEqual(['{"deep":{}}', '2']);
    expect(messages[0].member('content')?.members?.size).toBe(0);
  });

  it('records nothing for a blank buffer', () => {
    expect(scanJson(Buffer.from(' \n'), UNLIMITED)).toEqual({ depth: 0, tooDeep: false, root: undefined });
  });

  it('slices every member back to its value for any spelling of any object', () => {
    const objects = spelledJson(fc.dictionary(fc.string(), fc.jsonValue()));
    fc.assert(
      fc.property(objects, ({ value, text }) => {
        const bytes = Buffer.from(text);
        const scan = scanJson(bytes, UNLIMITED);
        const expected = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
        expect(scan.depth).toBe(depthOf(expected));
        expect(scan.root?.members?.size).toBe(Object.keys(expected).length);
        for (const [key, node] of scan.root?.members ?? []) {
          expect(JSON.parse(slice(bytes, node))).toEqual(expected[key]);
        }
      }),
    );
  });
});
